/*
 * The memory pool of acl_async: memoryPoolSize blocks of datasets, block i holding test
 * image i (the guide's InitMemPool: block i ↔ file i % fileNum).
 */
#include <stdlib.h>
#include <string.h>

#include "acl_async.h"

int acl_async_pool_init(acl_async_pool *pool, const sample_model *model, const sample_fashion_set *set, size_t size)
{
    size_t i;
    memset(pool, 0, sizeof(*pool));
    pool->blocks = (acl_async_block *)calloc(size, sizeof(acl_async_block));
    SAMPLE_CHECK_EXPR_RET(pool->blocks != NULL, "cannot allocate %zu pool blocks", size);
    pthread_mutex_init(&pool->mutex, NULL);
    pthread_cond_init(&pool->freed, NULL);
    for (i = 0; i < size; i++) {
        acl_async_block *block = &pool->blocks[i];
        block->image = i % set->count;
        if (sample_io_create(model, NULL, &block->io) != SAMPLE_SUCCESS ||
            sample_io_set_image(model, &block->io, 0, set->pixels + block->image * SAMPLE_IMAGE_PIXELS) !=
                SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        pool->size++;
    }
    pool->free_count = size;
    return SAMPLE_SUCCESS;
}

acl_async_block *acl_async_pool_malloc(acl_async_pool *pool, int wait)
{
    acl_async_block *found = NULL;
    size_t i;
    pthread_mutex_lock(&pool->mutex);
    while (pool->free_count == 0 && wait) {
        pthread_cond_wait(&pool->freed, &pool->mutex);
    }
    for (i = 0; i < pool->size && pool->free_count > 0; i++) {
        if (!pool->blocks[i].busy) {
            found = &pool->blocks[i];
            found->busy = 1;
            pool->free_count--;
            break;
        }
    }
    pthread_mutex_unlock(&pool->mutex);
    return found;
}

void acl_async_pool_free(acl_async_pool *pool, acl_async_block *block)
{
    pthread_mutex_lock(&pool->mutex);
    block->busy = 0;
    pool->free_count++;
    pthread_cond_signal(&pool->freed);
    pthread_mutex_unlock(&pool->mutex);
}

int acl_async_pool_destroy(acl_async_pool *pool)
{
    size_t i;
    int ret = SAMPLE_SUCCESS;
    for (i = 0; i < pool->size; i++) {
        if (sample_io_destroy(&pool->blocks[i].io) != SAMPLE_SUCCESS) {
            ret = SAMPLE_FAILURE;
        }
    }
    free(pool->blocks);
    pthread_mutex_destroy(&pool->mutex);
    pthread_cond_destroy(&pool->freed);
    memset(pool, 0, sizeof(*pool));
    return ret;
}
