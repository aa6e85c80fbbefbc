#ifndef ACL_MULTI_MODEL_H
#define ACL_MULTI_MODEL_H

#define ACL_MULTI_MODEL_DEFAULT_MODEL_DIR "../model"
#define ACL_MULTI_MODEL_DEFAULT_COUNT 1000
#define ACL_MULTI_MODEL_NUM 2
/* float and int8 must give the same top-1 on at least this share of the images */
#define ACL_MULTI_MODEL_DEFAULT_MIN_AGREEMENT 95.0
#define ACL_MULTI_MODEL_DEFAULT_MIN_ACCURACY 83.0

#endif
