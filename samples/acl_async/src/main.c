/*
 * acl_async — guide §8.3.2 "asynchronous inference + callback": the guide's
 * acl_resnet50_async pattern on the Fashion-MNIST LeNet compiled by svp_atc.
 *
 *   acl_async [MODEL.om] [DATASET_DIR] [executeTimes] [callbackInterval] [memoryPoolSize]
 *             [MIN_ACCURACY_PERCENT]
 *
 * A memory pool of memoryPoolSize blocks (datasets; block i holds test image i) feeds
 * executeTimes svp_acl_mdl_execute_async calls on one stream. With callbackInterval m > 0 a
 * callback (svp_acl_rt_launch_callback, run by a thread subscribed with
 * svp_acl_rt_subscribe_report that loops in svp_acl_rt_process_report) follows every m
 * executions: it reads their results and gives the blocks back to the pool, so the pool may
 * be smaller than executeTimes. With m = 0 no callback is launched; the pool must then hold
 * executeTimes blocks and the results are read after svp_acl_rt_synchronize_stream.
 *
 * Checks: every asynchronous result equals the synchronous svp_acl_mdl_execute result of
 * the same image (scores within 1e-5, same top-1), every execution's result was processed
 * exactly once, ceil(executeTimes / m) callbacks ran, and the top-1 accuracy of the
 * processed results against the labels is at least MIN_ACCURACY_PERCENT (default 0).
 * Prints "acl_async OK" on success.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acl_async.h"

static sample_model g_model;
static acl_async_pool g_pool;
static sample_fashion_set g_set;
static float *g_sync_scores; /* [image][10], from svp_acl_mdl_execute */
static size_t g_execute_times = ACL_ASYNC_DEFAULT_EXECUTE_TIMES;
static size_t g_callback_interval = ACL_ASYNC_DEFAULT_CALLBACK_INTERVAL;
static size_t g_memory_pool_size = ACL_ASYNC_DEFAULT_MEMORY_POOL_SIZE;

/* Results, updated by whoever processes an output (the report thread, or the main thread
 * when there are no callbacks); read by the main thread after the report thread is joined. */
static size_t g_processed, g_mismatches, g_correct, g_callbacks, g_failures;
/* The report thread's state: it starts serving once the stream is subscribed to it and
 * stops before it is unsubscribed. */
enum { ACL_ASYNC_STARTING, ACL_ASYNC_RUNNING, ACL_ASYNC_EXITING };
static int g_state = ACL_ASYNC_STARTING;
static pthread_mutex_t g_state_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_state_cond = PTHREAD_COND_INITIALIZER;

typedef struct {
    acl_async_block **blocks;
    size_t count;
} acl_async_batch; /* the guide's dataMap: the executions one callback handles */

static void acl_async_set_state(int state)
{
    pthread_mutex_lock(&g_state_mutex);
    g_state = state;
    pthread_cond_broadcast(&g_state_cond);
    pthread_mutex_unlock(&g_state_mutex);
}

/* Waits until the thread may run; returns 1 when it must exit. */
static int acl_async_should_exit(void)
{
    int exit_now;
    pthread_mutex_lock(&g_state_mutex);
    while (g_state == ACL_ASYNC_STARTING) {
        pthread_cond_wait(&g_state_cond, &g_state_mutex);
    }
    exit_now = g_state == ACL_ASYNC_EXITING;
    pthread_mutex_unlock(&g_state_mutex);
    return exit_now;
}

/* The guide's ProcessCallback thread: runs the callbacks of the subscribed stream. */
static void *acl_async_report_thread(void *arg)
{
    svp_acl_error ret;
    (void)arg;
    while (!acl_async_should_exit()) {
        ret = svp_acl_rt_process_report(ACL_ASYNC_REPORT_TIMEOUT_MS);
        if (ret != SVP_ACL_SUCCESS && ret != SVP_ACL_ERROR_RT_REPORT_TIMEOUT) {
            SAMPLE_ERROR_LOG("svp_acl_rt_process_report failed, error code %d: %s", (int)ret, sample_err_msg());
            g_failures++;
        }
    }
    return NULL;
}

/* The guide's OutputModelResult: compares the block's output with the synchronous result. */
static void acl_async_output_result(acl_async_block *block)
{
    float scores[SAMPLE_CLASS_NUM];
    const float *want = g_sync_scores + block->image * SAMPLE_CLASS_NUM;
    svp_acl_data_buffer *out = NULL;
    int k, top1;
    if (sample_io_get_scores(&g_model, &block->io, 0, scores) != SAMPLE_SUCCESS) {
        g_failures++;
        return;
    }
    top1 = sample_argmax(scores, SAMPLE_CLASS_NUM);
    for (k = 0; k < SAMPLE_CLASS_NUM; k++) {
        if (fabsf(scores[k] - want[k]) > 1e-5f) {
            break;
        }
    }
    if (k < SAMPLE_CLASS_NUM || top1 != sample_argmax(want, SAMPLE_CLASS_NUM)) {
        SAMPLE_ERROR_LOG("image %zu: asynchronous score %d is %g, synchronous %g", block->image, k,
                         k < SAMPLE_CLASS_NUM ? scores[k] : 0.0, k < SAMPLE_CLASS_NUM ? want[k] : 0.0);
        g_mismatches++;
    }
    if (top1 == g_set.labels[block->image]) {
        g_correct++;
    }
    g_processed++;
    /* the next user of the block must not see this result (sample_io_get_scores checked buffer 0) */
    out = svp_acl_mdl_get_dataset_buffer(block->io.output, 0);
    memset(svp_acl_get_data_buffer_addr(out), 0, svp_acl_get_data_buffer_size(out));
}

/* The guide's CallBackFunc: process the batch's results and give its blocks back. */
static void acl_async_callback(void *arg)
{
    acl_async_batch *batch = (acl_async_batch *)arg;
    size_t i;
    g_callbacks++;
    for (i = 0; i < batch->count; i++) {
        acl_async_output_result(batch->blocks[i]);
        acl_async_pool_free(&g_pool, batch->blocks[i]);
    }
    free(batch->blocks);
    free(batch);
}

static acl_async_batch *acl_async_new_batch(void)
{
    acl_async_batch *batch = (acl_async_batch *)calloc(1, sizeof(acl_async_batch));
    if (batch != NULL) {
        batch->blocks = (acl_async_block **)calloc(g_callback_interval, sizeof(acl_async_block *));
        if (batch->blocks == NULL) {
            free(batch);
            batch = NULL;
        }
    }
    return batch;
}

/* The synchronous reference: every image of the pool through svp_acl_mdl_execute. */
static int acl_async_sync_reference(void)
{
    sample_io io;
    size_t i;
    g_sync_scores = (float *)calloc(g_set.count * SAMPLE_CLASS_NUM, sizeof(float));
    SAMPLE_CHECK_EXPR_RET(g_sync_scores != NULL, "out of memory");
    if (sample_io_create(&g_model, NULL, &io) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    for (i = 0; i < g_set.count; i++) {
        if (sample_io_set_image(&g_model, &io, 0, g_set.pixels + i * SAMPLE_IMAGE_PIXELS) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        SAMPLE_CHECK_RET(svp_acl_mdl_execute(g_model.model_id, io.input, io.output));
        if (sample_io_get_scores(&g_model, &io, 0, g_sync_scores + i * SAMPLE_CLASS_NUM) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    return sample_io_destroy(&io);
}

/* The guide's ExecuteAsync. */
static int acl_async_execute(svp_acl_rt_stream stream)
{
    int is_callback = g_callback_interval != 0;
    acl_async_batch *batch = NULL;
    acl_async_block *block = NULL;
    size_t cnt, i;
    for (cnt = 0; cnt < g_execute_times; cnt++) {
        block = acl_async_pool_malloc(&g_pool, is_callback);
        SAMPLE_CHECK_EXPR_RET(block != NULL, "get free memory failed (memoryPoolSize %zu < executeTimes %zu "
                              "without callbacks)", g_memory_pool_size, g_execute_times);
        SAMPLE_CHECK_RET(svp_acl_mdl_execute_async(g_model.model_id, block->io.input, block->io.output, stream));
        if (!is_callback) {
            continue;
        }
        if (batch == NULL) {
            batch = acl_async_new_batch();
            SAMPLE_CHECK_EXPR_RET(batch != NULL, "malloc list failed, modelId is %u", g_model.model_id);
        }
        batch->blocks[batch->count++] = block;
        if (batch->count == g_callback_interval || cnt + 1 == g_execute_times) {
            SAMPLE_CHECK_RET(svp_acl_rt_launch_callback(acl_async_callback, batch, SVP_ACL_CALLBACK_BLOCK, stream));
            batch = NULL;
        }
    }
    SAMPLE_CHECK_RET(svp_acl_rt_synchronize_stream(stream));
    if (!is_callback) {
        for (i = 0; i < g_pool.size; i++) {
            if (g_pool.blocks[i].busy) {
                acl_async_output_result(&g_pool.blocks[i]);
                acl_async_pool_free(&g_pool, &g_pool.blocks[i]);
            }
        }
    }
    return SAMPLE_SUCCESS;
}

static int acl_async_run(const char *model_path, svp_acl_rt_stream stream)
{
    pthread_t tid;
    int ret;
    if (sample_model_load(model_path, &g_model) != SAMPLE_SUCCESS ||
        sample_model_check_classifier(&g_model) != SAMPLE_SUCCESS || acl_async_sync_reference() != SAMPLE_SUCCESS ||
        acl_async_pool_init(&g_pool, &g_model, &g_set, g_memory_pool_size) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    /* 4.1 the callback thread, 4.2 subscribed to the stream */
    SAMPLE_CHECK_EXPR_RET(pthread_create(&tid, NULL, acl_async_report_thread, NULL) == 0, "pthread_create failed");
    ret = svp_acl_rt_subscribe_report((uint64_t)tid, stream);
    if (ret != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("svp_acl_rt_subscribe_report failed, error code %d: %s", ret, sample_err_msg());
        acl_async_set_state(ACL_ASYNC_EXITING);
        pthread_join(tid, NULL);
        return SAMPLE_FAILURE;
    }
    acl_async_set_state(ACL_ASYNC_RUNNING);
    /* 4.3 execute, 4.4 synchronize */
    ret = acl_async_execute(stream);
    /* 4.5 stop the thread (every callback ran: the stream is synchronized), unsubscribe */
    acl_async_set_state(ACL_ASYNC_EXITING);
    pthread_join(tid, NULL);
    SAMPLE_CHECK_RET(svp_acl_rt_unsubscribe_report((uint64_t)tid, stream));
    if (acl_async_pool_destroy(&g_pool) != SAMPLE_SUCCESS || sample_model_unload(&g_model) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    return ret;
}

int main(int argc, char *argv[])
{
    const char *model_path = argc > 1 ? argv[1] : ACL_ASYNC_DEFAULT_MODEL;
    const char *dataset_dir = argc > 2 ? argv[2] : SAMPLE_DEFAULT_DATASET_DIR;
    double min_accuracy = argc > 6 ? atof(argv[6]) : 0.0, accuracy;
    size_t want_callbacks;
    svp_acl_rt_context context = NULL;
    svp_acl_rt_stream stream = NULL;
    int ret;
    if (argc > 3) g_execute_times = (size_t)strtoul(argv[3], NULL, 10);
    if (argc > 4) g_callback_interval = (size_t)strtoul(argv[4], NULL, 10);
    if (argc > 5) g_memory_pool_size = (size_t)strtoul(argv[5], NULL, 10);
    if (g_execute_times == 0 || g_memory_pool_size == 0 ||
        (g_callback_interval == 0 && g_memory_pool_size < g_execute_times)) {
        SAMPLE_ERROR_LOG("executeTimes and memoryPoolSize must be > 0, and without callbacks (callbackInterval 0) "
                         "memoryPoolSize >= executeTimes");
        return 2;
    }
    SAMPLE_INFO_LOG("executeTimes %zu, callbackInterval %zu, memoryPoolSize %zu", g_execute_times,
                    g_callback_interval, g_memory_pool_size);
    /* one distinct test image per pool block */
    if (sample_fashion_load(dataset_dir, g_memory_pool_size, &g_set) != SAMPLE_SUCCESS) {
        return 1;
    }
    if (svp_acl_init(NULL) != SVP_ACL_SUCCESS || svp_acl_rt_set_device(0) != SVP_ACL_SUCCESS ||
        svp_acl_rt_create_context(&context, 0) != SVP_ACL_SUCCESS ||
        svp_acl_rt_create_stream(&stream) != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("runtime resources: %s", sample_err_msg());
        return 1;
    }
    ret = acl_async_run(model_path, stream);
    if (svp_acl_rt_destroy_stream(stream) != SVP_ACL_SUCCESS || svp_acl_rt_destroy_context(context) != SVP_ACL_SUCCESS ||
        svp_acl_rt_reset_device(0) != SVP_ACL_SUCCESS || svp_acl_finalize() != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("releasing the runtime resources: %s", sample_err_msg());
        return 1;
    }
    if (ret != SAMPLE_SUCCESS) {
        return 1;
    }
    want_callbacks =
        g_callback_interval == 0 ? 0 : (g_execute_times + g_callback_interval - 1) / g_callback_interval;
    accuracy = 100.0 * (double)g_correct / (double)g_processed;
    SAMPLE_INFO_LOG("%zu results processed by %zu callback(s); %zu differ from the synchronous run; top-1 %.2f %%",
                    g_processed, g_callbacks, g_mismatches, accuracy);
    if (g_failures != 0 || g_mismatches != 0 || g_processed != g_execute_times || g_callbacks != want_callbacks) {
        SAMPLE_ERROR_LOG("expected %zu results from %zu callback(s), all equal to the synchronous run, and no failed "
                         "call (%zu)", g_execute_times, want_callbacks, g_failures);
        return 1;
    }
    if (accuracy < min_accuracy) {
        SAMPLE_ERROR_LOG("top-1 %.2f %% on the pool's %zu images is below %.2f %%", accuracy, g_set.count, min_accuracy);
        return 1;
    }
    free(g_sync_scores);
    sample_fashion_free(&g_set);
    printf("acl_async OK\n");
    return 0;
}
