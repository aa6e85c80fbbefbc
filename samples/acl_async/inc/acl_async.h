#ifndef ACL_ASYNC_H
#define ACL_ASYNC_H

#include <pthread.h>

#include "sample_common.h"

#define ACL_ASYNC_DEFAULT_MODEL "../model/lenet.om"
/* The guide's defaults: g_executeTimes, g_callbackInterval, g_memoryPoolSize. */
#define ACL_ASYNC_DEFAULT_EXECUTE_TIMES 10
#define ACL_ASYNC_DEFAULT_CALLBACK_INTERVAL 1
#define ACL_ASYNC_DEFAULT_MEMORY_POOL_SIZE 10
#define ACL_ASYNC_REPORT_TIMEOUT_MS 100

/* One memory block: the datasets of one execution, holding test image `image`. */
typedef struct {
    sample_io io;
    size_t image;
    int busy;
} acl_async_block;

/* The memory pool (the guide's MemoryPool): blocks handed out by malloc_memory and given
 * back by the callback (free_memory). */
typedef struct {
    acl_async_block *blocks;
    size_t size;
    size_t free_count;
    pthread_mutex_t mutex;
    pthread_cond_t freed;
} acl_async_pool;

int acl_async_pool_init(acl_async_pool *pool, const sample_model *model, const sample_fashion_set *set, size_t size);
/* Takes a free block; waits for a callback to free one when `wait` is set, else fails. */
acl_async_block *acl_async_pool_malloc(acl_async_pool *pool, int wait);
void acl_async_pool_free(acl_async_pool *pool, acl_async_block *block);
int acl_async_pool_destroy(acl_async_pool *pool);

#endif
