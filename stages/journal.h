/* journal.h — log lines to journald natively, each part a field of its
 * own, where a stage runs as a systemd service (common.h's
 * br_log_set_journal): `journalctl BRINGUP_NODE=gpu-r07-u03` is one
 * node's history across the stages, BRINGUP_STAGE, BRINGUP_SUBSYSTEM and
 * BRINGUP_BMC beside it, MESSAGE the line the stream would have carried. */
#ifndef STAGES_JOURNAL_H
#define STAGES_JOURNAL_H

/* Install the sender (libsystemd's sd_journal_sendv) for this process. */
void stg_journal_install(void);

#endif
