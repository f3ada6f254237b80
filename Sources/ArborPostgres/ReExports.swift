// The backend-neutral store (`StateStore`, `StoreError`, `FsyncPolicy`, …), in which the
// PostgreSQL store's calls are written, comes with it: `import ArborPostgres` is enough.
@_exported import ArborStorage
