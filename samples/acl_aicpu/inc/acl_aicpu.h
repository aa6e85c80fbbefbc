#ifndef ACL_AICPU_H
#define ACL_AICPU_H

#define ACL_AICPU_DEFAULT_MODEL_DIR "../model"
#define ACL_AICPU_DEFAULT_WORKERS 2
#define ACL_AICPU_DEFAULT_COUNT 300
#define ACL_AICPU_MAX_WORKERS 8
#define ACL_AICPU_STREAMS 2
#define ACL_AICPU_TASK_TIMEOUT_MS 100
/* the two placements compute the same function; float sums may differ in the last bits */
#define ACL_AICPU_TOLERANCE 1e-4f

#endif
