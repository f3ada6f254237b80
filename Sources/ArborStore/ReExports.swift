// The backend-neutral store (`StateStore`, `JournalEntry`, `JournalWriter`, `StoreError`,
// …) comes with the SQLite store: `import ArborStore` is all a program that opens a
// ``Store`` needs, as before the abstraction had a module of its own.
@_exported import ArborStorage
