/* SPDX-License-Identifier: MIT */
/*
 * The CCID registry (RFC 4340 §10): the congestion control mechanisms this
 * build implements.  A new CCID is one more line in the table.
 */
#include <stddef.h>

#include "ccid.h"
#include "ccid2.h"
#include "ccid3.h"
#include "ccid4.h"

static const udccp_ccid_ops *const udccp_ccid_table[] = {
    &udccp_ccid2_ops, /* RFC 4341 */
    &udccp_ccid3_ops, /* RFC 4342 */
    &udccp_ccid4_ops, /* RFC 5622 */
};

const udccp_ccid_ops *udccp_ccid_find(uint8_t id) {
  size_t i;
  for (i = 0; i < sizeof(udccp_ccid_table) / sizeof(udccp_ccid_table[0]); i++) {
    if (udccp_ccid_table[i]->id == id) {
      return udccp_ccid_table[i];
    }
  }
  return NULL;
}

int udccp_ccid_supported(uint8_t id) { return udccp_ccid_find(id) != NULL; }
