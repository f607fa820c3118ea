/* SPDX-License-Identifier: MIT */
/*
 * The table of flow kinds --flows may name.
 */
#include <string.h>

#include "sim_flow.h"

const sim_flow_kind *const sim_flow_kinds[] = {
    &sim_kind_ccid2, &sim_kind_ccid3, &sim_kind_ccid4, &sim_kind_tcp,
    &sim_kind_tcp_delack, NULL};

const sim_flow_kind *sim_flow_kind_find(const char *name) {
  for (size_t i = 0; sim_flow_kinds[i] != NULL; i++) {
    if (strcmp(sim_flow_kinds[i]->name, name) == 0) {
      return sim_flow_kinds[i];
    }
  }
  return NULL;
}
