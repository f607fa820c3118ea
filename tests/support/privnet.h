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

/* Sets the loopback's MTU in the current namespace (after
 * udccp_test_private_loopback): a path whose MTU drops after connect.
 * 0 on success, -1 on failure. */
int udccp_test_set_loopback_mtu(int mtu);

#endif /* UDCCP_TESTS_PRIVNET_H */
