// CEpoll only re-exports <sys/epoll.h>; a C target needs one source file.
#include "CEpoll.h"
