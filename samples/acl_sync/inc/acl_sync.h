#ifndef ACL_SYNC_H
#define ACL_SYNC_H

#define ACL_SYNC_DEFAULT_MODEL "../model/lenet.om"
#define ACL_SYNC_DEFAULT_COUNT 1000
/* PyTorch measured 86.35 % on the 10,000 test images (models/README.md). */
#define ACL_SYNC_DEFAULT_MIN_ACCURACY 84.0

#endif
