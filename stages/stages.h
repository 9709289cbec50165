/*
 * stages — each pipeline stage's logic as options -> run -> result, and the
 * skeleton every stage executable follows (open the inventory, select and
 * lease the nodes, report, close). The executables in bringup/ only parse
 * options, call in here and print; the unit tests link the same code.
 *
 * One prefix, stg_. The parts, each with its own ownership notes:
 *   stage.h        the skeleton, exit codes, which stage takes which node
 *   config.h       bringup.conf: settings into the environment; site profiles
 *   manifest.h     import: reading rack.csv
 *   netbox.h       import: a rack from NetBox's REST API (devices, cables)
 *   bmcopts.h      the options and failure reasons of stages that talk to BMCs
 *   credentials.h  credentials rotate: factory BMC passwords to site ones
 *   discover.h     discover: read every BMC, store its facts
 *   configure.h    configure's jobs and their outcomes
 *   maasopts.h     the options of stages that talk to MAAS
 *   netboxopts.h   the options of import and export that talk to NetBox
 *   enlist.h       enlist's MAAS flow
 *   validate.h     validate: probe over SSH, judge, store
 *   gate.h         gate: promote or quarantine, mirrored in MAAS
 *   tickets.h      tickets and their webhook (webhook.h), or Jira and
 *                  ServiceNow by their APIs (ticketsys.h, on rest.h)
 *   report.h       the HTML rack report
 *   reprovision.h  a node back to its stage
 *   lifecycle.h    retiring and unretiring
 *   metrics.h      the Prometheus text file of the inventory and the last run
 *   follow.h       status --follow: the site's transitions as they are recorded
 */
#ifndef STAGES_STAGES_H
#define STAGES_STAGES_H

#include "stages/bmcopts.h"
#include "stages/config.h"
#include "stages/configure.h"
#include "stages/credentials.h"
#include "stages/discover.h"
#include "stages/enlist.h"
#include "stages/firmware.h"
#include "stages/follow.h"
#include "stages/journal.h"
#include "stages/maasopts.h"
#include "stages/gate.h"
#include "stages/lifecycle.h"
#include "stages/manifest.h"
#include "stages/metrics.h"
#include "stages/netbox.h"
#include "stages/netboxopts.h"
#include "stages/report.h"
#include "stages/reprovision.h"
#include "stages/stage.h"
#include "stages/rest.h"
#include "stages/tickets.h"
#include "stages/ticketsys.h"
#include "stages/validate.h"
#include "stages/webhook.h"

#endif
