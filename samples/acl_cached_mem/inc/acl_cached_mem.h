#ifndef ACL_CACHED_MEM_H
#define ACL_CACHED_MEM_H

#define ACL_CACHED_MEM_DEFAULT_MODEL "../model/lenet.om"
#define ACL_CACHED_MEM_DEFAULT_COUNT 200

#endif
