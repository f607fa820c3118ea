/* SPDX-License-Identifier: MIT */
/*
 * The table of flow kinds --flows may name, and "ccidN": a udccp
 * connection with whatever CCID is registered under N (udccp_ccid_register,
 * include/udccp/ccid.h), made on first use from the CCID 2 kind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_flow.h"

const sim_flow_kind *const sim_flow_kinds[] = {
    &sim_kind_ccid2, &sim_kind_ccid3, &sim_kind_ccid4, &sim_kind_cubic, &sim_kind_bbr,
    &sim_kind_tcp, &sim_kind_tcp_delack, &sim_kind_tcp_cubic,
    &sim_kind_tcp_bbr, &sim_kind_mp_ccid2, &sim_kind_mp_ccid3, NULL};

/* Kinds of registered CCIDs, by number (the simulator is single-threaded). */
static sim_flow_kind dyn_kinds[256];
static char dyn_names[256][16];

static const sim_flow_kind *dyn_kind(const char *name) {
  int id = udccp_ccid_parse(name);
  if (id < 5 || strncmp(name, "ccid", 4) != 0 ||
      udccp_ccid_lookup((uint8_t)id) == NULL) {
    return NULL;
  }
  if (dyn_kinds[id].name == NULL) {
    dyn_kinds[id] = sim_kind_ccid2;
    snprintf(dyn_names[id], sizeof(dyn_names[id]), "ccid%u", (unsigned)(id & 0xFF));
    dyn_kinds[id].name = dyn_names[id];
    dyn_kinds[id].ccid = id;
    dyn_kinds[id].tfrc = 0;
    dyn_kinds[id].help = "udccp connection, the CCID registered under N";
  }
  return &dyn_kinds[id];
}

const sim_flow_kind *sim_flow_kind_find(const char *name) {
  for (size_t i = 0; sim_flow_kinds[i] != NULL; i++) {
    if (strcmp(sim_flow_kinds[i]->name, name) == 0) {
      return sim_flow_kinds[i];
    }
  }
  return dyn_kind(name);
}
