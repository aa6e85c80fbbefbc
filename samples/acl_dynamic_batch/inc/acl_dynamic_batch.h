#ifndef ACL_DYNAMIC_BATCH_H
#define ACL_DYNAMIC_BATCH_H

#define ACL_DYNAMIC_BATCH_DEFAULT_MODEL_DIR "../model"
#define ACL_DYNAMIC_BATCH_DEFAULT_COUNT 512
/* The gears script/compile_model.sh compiles (--dynamic_batch_size="1,2,4,8"). */
#define ACL_DYNAMIC_BATCH_GEARS {1, 2, 4, 8}
#define ACL_DYNAMIC_BATCH_GEAR_NUM 4
#define ACL_DYNAMIC_BATCH_MAX 8
#define ACL_DYNAMIC_BATCH_TOLERANCE 1e-4f

#endif
