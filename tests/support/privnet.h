/* SPDX-License-Identifier: MIT */
/*
 * Test helper: moves the calling process into a private network namespace
 * (unshare(CLONE_NEWNET); the host's network is not touched) and brings its
 * loopback up with the given MTU.  Needs root.
 */
#ifndef UDCCP_TESTS_PRIVNET_H
#define UDCCP_TESTS_PRIVNET_H

/* 0 on success; -1 not root, -2 unshare failed, -3 no socket, -4 the
 * loopback could not be configured. */
int udccp_test_private_loopback(int mtu);

#endif /* UDCCP_TESTS_PRIVNET_H */
