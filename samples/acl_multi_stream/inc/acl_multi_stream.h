#ifndef ACL_MULTI_STREAM_H
#define ACL_MULTI_STREAM_H

#define ACL_MULTI_STREAM_DEFAULT_MODEL "../model/lenet.om"
#define ACL_MULTI_STREAM_DEFAULT_THREADS 3
#define ACL_MULTI_STREAM_DEFAULT_COUNT 600
#define ACL_MULTI_STREAM_MAX_THREADS 16
/* executions in flight per thread, each with its own datasets and event */
#define ACL_MULTI_STREAM_DEPTH 4
/* executions queued on stream 1 before stream 2 waits for them (§8.2.4) */
#define ACL_MULTI_STREAM_CHAIN 64

#endif
