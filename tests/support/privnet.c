/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "privnet.h"

#include <net/if.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int set_lo(int fd, unsigned long req, int mtu) {
  struct ifreq ifr;
  memset(&ifr, 0, sizeof(ifr));
  strcpy(ifr.ifr_name, "lo");
  if (req == SIOCSIFMTU) {
    ifr.ifr_mtu = mtu;
  } else {
    ifr.ifr_flags = IFF_UP | IFF_RUNNING;
  }
  return ioctl(fd, req, &ifr);
}

int udccp_test_private_loopback(int mtu) {
  int fd, rv;
  if (geteuid() != 0) {
    return -1;
  }
  if (unshare(CLONE_NEWNET) != 0) {
    return -2;
  }
  fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) {
    return -3;
  }
  rv = set_lo(fd, SIOCSIFMTU, mtu);
  rv |= set_lo(fd, SIOCSIFFLAGS, 0);
  close(fd);
  return rv == 0 ? 0 : -4;
}

int udccp_test_set_loopback_mtu(int mtu) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) {
    return -1;
  }
  int rv = set_lo(fd, SIOCSIFMTU, mtu);
  close(fd);
  return rv == 0 ? 0 : -1;
}
