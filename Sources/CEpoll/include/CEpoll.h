// Linux's epoll, for the benchmarks' load generator (Swift's Glibc module leaves it out).
#ifndef CEPOLL_H
#define CEPOLL_H
#include <sys/epoll.h>
#endif
