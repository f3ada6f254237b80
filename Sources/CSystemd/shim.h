// libsystemd's daemon and journal interfaces, for ArborSystemd only. The journal's
// variadic calls cannot be called from Swift: ArborSystemd uses sd_journal_sendv.
#ifndef ARBOR_CSYSTEMD_SHIM_H
#define ARBOR_CSYSTEMD_SHIM_H

#include <sys/uio.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

#endif
