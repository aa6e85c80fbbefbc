#ifndef ACL_PRIORITY_H
#define ACL_PRIORITY_H

#define ACL_PRIORITY_DEFAULT_MODEL_DIR "../model"
/* images per execution (svp_acl_mdl_set_dynamic_batch_size on the batch-1 model) */
#define ACL_PRIORITY_BATCH 16
/* each stream's queue is sized to take about this long */
#define ACL_PRIORITY_QUEUE_MS 120.0
#define ACL_PRIORITY_MAX_QUEUE 4000
#define ACL_PRIORITY_HIGH 1
#define ACL_PRIORITY_LOW 6
#define ACL_PRIORITY_DEFAULT 3
/* promotion to the top priority after this wait (guide: a timeout per the expected frame rate) */
#define ACL_PRIORITY_TOP_TIMEOUT_MS 20
/* preemption: one low-priority execution of this many ms (its batch items are the segment
 * boundaries where it can be interrupted), the high-priority one submitted this far into it */
#define ACL_PRIORITY_LONG_MS 150.0
#define ACL_PRIORITY_LONG_MAX_BATCH 5000
#define ACL_PRIORITY_LONG_HEAD_START_MS 20.0

#endif
