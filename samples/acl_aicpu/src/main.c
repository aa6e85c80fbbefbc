/*
 * acl_aicpu — guide §8.5 "inference with AI-CPU operators": the Fashion-MNIST LeNet compiled
 * by svp_atc with its fc1 Gemm forced onto the AI-CPU (lenet_aicpu.om), executed
 * asynchronously on two streams while WORKERS threads loop in
 * svp_acl_ext_process_aicpu_task to run the AI-CPU layers.
 *
 *   acl_aicpu [MODEL_DIR] [DATASET_DIR] [WORKERS] [COUNT] [MIN_ACCURACY_PERCENT]
 *
 * MODEL_DIR holds lenet.om (all layers on the NPU) and lenet_aicpu.om.
 * Checks: svp_acl_ext_get_mdl_aicpu_task_num is 0 for lenet.om and > 0 for lenet_aicpu.om;
 * the asynchronous results of lenet_aicpu.om and its synchronous results (AI-CPU layers run
 * by the runtime itself) both equal the all-NPU model's synchronous results (within 1e-4,
 * same top-1); top-1 accuracy against the labels >= MIN_ACCURACY_PERCENT.
 * Prints "acl_aicpu OK" on success.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "acl/svp_acl_ext.h"
#include "acl_aicpu.h"
#include "sample_common.h"

static sample_fashion_set g_set;
static svp_acl_rt_context g_context;
static int g_thread_exit_flag;
static pthread_mutex_t g_flag_mutex = PTHREAD_MUTEX_INITIALIZER;
static size_t g_worker_errors;

static int acl_aicpu_exit_requested(void)
{
    int flag;
    pthread_mutex_lock(&g_flag_mutex);
    flag = g_thread_exit_flag;
    pthread_mutex_unlock(&g_flag_mutex);
    return flag;
}

/* The guide's cpu_func_async_test: the AI-CPU worker thread. */
static void *acl_aicpu_worker(void *param)
{
    svp_acl_error ret;
    (void)param;
    if (svp_acl_rt_set_current_context(g_context) != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("svp_acl_rt_set_current_context failed: %s", sample_err_msg());
        pthread_mutex_lock(&g_flag_mutex);
        g_worker_errors++;
        pthread_mutex_unlock(&g_flag_mutex);
        return NULL;
    }
    while (!acl_aicpu_exit_requested()) {
        ret = svp_acl_ext_process_aicpu_task(ACL_AICPU_TASK_TIMEOUT_MS);
        if (ret != SVP_ACL_SUCCESS && ret != SVP_ACL_ERROR_RT_REPORT_TIMEOUT) {
            SAMPLE_ERROR_LOG("svp_acl_ext_process_aicpu_task failed, error code %d: %s", (int)ret, sample_err_msg());
            pthread_mutex_lock(&g_flag_mutex);
            g_worker_errors++;
            pthread_mutex_unlock(&g_flag_mutex);
        }
    }
    return NULL;
}

/* Scores of every image through svp_acl_mdl_execute. */
static int acl_aicpu_sync_scores(const sample_model *model, float *scores)
{
    sample_io io;
    size_t i;
    if (sample_io_create(model, NULL, &io) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    for (i = 0; i < g_set.count; i++) {
        if (sample_io_set_image(model, &io, 0, g_set.pixels + i * SAMPLE_IMAGE_PIXELS) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        SAMPLE_CHECK_RET(svp_acl_mdl_execute(model->model_id, io.input, io.output));
        if (sample_io_get_scores(model, &io, 0, scores + i * SAMPLE_CLASS_NUM) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    return sample_io_destroy(&io);
}

/* Every image through svp_acl_mdl_execute_async, alternating between the streams. */
static int acl_aicpu_async_scores(const sample_model *model, svp_acl_rt_stream *streams, float *scores)
{
    sample_io *ios = (sample_io *)calloc(g_set.count, sizeof(sample_io));
    size_t i;
    SAMPLE_CHECK_EXPR_RET(ios != NULL, "out of memory");
    for (i = 0; i < g_set.count; i++) {
        if (sample_io_create(model, NULL, &ios[i]) != SAMPLE_SUCCESS ||
            sample_io_set_image(model, &ios[i], 0, g_set.pixels + i * SAMPLE_IMAGE_PIXELS) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        SAMPLE_CHECK_RET(
            svp_acl_mdl_execute_async(model->model_id, ios[i].input, ios[i].output, streams[i % ACL_AICPU_STREAMS]));
    }
    for (i = 0; i < ACL_AICPU_STREAMS; i++) {
        SAMPLE_CHECK_RET(svp_acl_rt_synchronize_stream(streams[i]));
    }
    for (i = 0; i < g_set.count; i++) {
        if (sample_io_get_scores(model, &ios[i], 0, scores + i * SAMPLE_CLASS_NUM) != SAMPLE_SUCCESS ||
            sample_io_destroy(&ios[i]) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    free(ios);
    return SAMPLE_SUCCESS;
}

/* Counts the images whose scores differ from the reference. */
static size_t acl_aicpu_compare(const char *what, const float *got, const float *want)
{
    size_t i, differ = 0;
    int k;
    for (i = 0; i < g_set.count; i++) {
        const float *g = got + i * SAMPLE_CLASS_NUM, *w = want + i * SAMPLE_CLASS_NUM;
        for (k = 0; k < SAMPLE_CLASS_NUM; k++) {
            if (fabsf(g[k] - w[k]) > ACL_AICPU_TOLERANCE) {
                break;
            }
        }
        if (k < SAMPLE_CLASS_NUM || sample_argmax(g, SAMPLE_CLASS_NUM) != sample_argmax(w, SAMPLE_CLASS_NUM)) {
            if (differ++ < 3) {
                SAMPLE_ERROR_LOG("%s, image %zu: score %d is %g, the all-NPU model gave %g", what, i, k,
                                 k < SAMPLE_CLASS_NUM ? g[k] : 0.0, k < SAMPLE_CLASS_NUM ? w[k] : 0.0);
            }
        }
    }
    return differ;
}

static int acl_aicpu_run(const char *model_dir, size_t workers, size_t *differ, size_t *correct)
{
    char path[1024];
    sample_model npu, aicpu;
    uint32_t npu_tasks = 1, aicpu_tasks = 0;
    svp_acl_rt_stream streams[ACL_AICPU_STREAMS];
    pthread_t tids[ACL_AICPU_MAX_WORKERS];
    float *reference = (float *)calloc(g_set.count * SAMPLE_CLASS_NUM, sizeof(float));
    float *got = (float *)calloc(g_set.count * SAMPLE_CLASS_NUM, sizeof(float));
    size_t i;
    SAMPLE_CHECK_EXPR_RET(reference != NULL && got != NULL, "out of memory");
    snprintf(path, sizeof(path), "%s/lenet.om", model_dir);
    if (sample_model_load(path, &npu) != SAMPLE_SUCCESS || sample_model_check_classifier(&npu) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    snprintf(path, sizeof(path), "%s/lenet_aicpu.om", model_dir);
    if (sample_model_load(path, &aicpu) != SAMPLE_SUCCESS ||
        sample_model_check_classifier(&aicpu) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_CHECK_RET(svp_acl_ext_get_mdl_aicpu_task_num(npu.model_id, &npu_tasks));
    SAMPLE_CHECK_RET(svp_acl_ext_get_mdl_aicpu_task_num(aicpu.model_id, &aicpu_tasks));
    SAMPLE_INFO_LOG("AI-CPU tasks: lenet.om %u, lenet_aicpu.om %u", npu_tasks, aicpu_tasks);
    SAMPLE_CHECK_EXPR_RET(npu_tasks == 0 && aicpu_tasks > 0,
                          "expected no AI-CPU task in lenet.om and at least one in lenet_aicpu.om");

    if (acl_aicpu_sync_scores(&npu, reference) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    /* synchronous execution runs the AI-CPU layers itself: no worker yet */
    if (acl_aicpu_sync_scores(&aicpu, got) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    *differ = acl_aicpu_compare("lenet_aicpu.om, synchronous", got, reference);

    /* asynchronous: streams first (the workers need one), then the AI-CPU worker threads */
    for (i = 0; i < ACL_AICPU_STREAMS; i++) {
        SAMPLE_CHECK_RET(svp_acl_rt_create_stream(&streams[i]));
    }
    for (i = 0; i < workers; i++) {
        SAMPLE_CHECK_EXPR_RET(pthread_create(&tids[i], NULL, acl_aicpu_worker, NULL) == 0, "pthread_create failed");
    }
    memset(got, 0, g_set.count * SAMPLE_CLASS_NUM * sizeof(float));
    if (acl_aicpu_async_scores(&aicpu, streams, got) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    pthread_mutex_lock(&g_flag_mutex);
    g_thread_exit_flag = 1;
    pthread_mutex_unlock(&g_flag_mutex);
    for (i = 0; i < workers; i++) {
        pthread_join(tids[i], NULL);
    }
    *differ += acl_aicpu_compare("lenet_aicpu.om, asynchronous", got, reference);
    *correct = 0;
    for (i = 0; i < g_set.count; i++) {
        if (sample_argmax(got + i * SAMPLE_CLASS_NUM, SAMPLE_CLASS_NUM) == g_set.labels[i]) {
            (*correct)++;
        }
    }
    for (i = 0; i < ACL_AICPU_STREAMS; i++) {
        SAMPLE_CHECK_RET(svp_acl_rt_destroy_stream(streams[i]));
    }
    free(reference);
    free(got);
    if (sample_model_unload(&aicpu) != SAMPLE_SUCCESS || sample_model_unload(&npu) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    return SAMPLE_SUCCESS;
}

int main(int argc, char *argv[])
{
    const char *model_dir = argc > 1 ? argv[1] : ACL_AICPU_DEFAULT_MODEL_DIR;
    const char *dataset_dir = argc > 2 ? argv[2] : SAMPLE_DEFAULT_DATASET_DIR;
    size_t workers = argc > 3 ? (size_t)strtoul(argv[3], NULL, 10) : ACL_AICPU_DEFAULT_WORKERS;
    size_t count = argc > 4 ? (size_t)strtoul(argv[4], NULL, 10) : ACL_AICPU_DEFAULT_COUNT;
    double min_accuracy = argc > 5 ? atof(argv[5]) : 0.0, accuracy;
    size_t differ = 0, correct = 0;
    int ret;
    if (workers == 0 || workers > ACL_AICPU_MAX_WORKERS || count == 0) {
        SAMPLE_ERROR_LOG("WORKERS must be 1..%d and COUNT > 0", ACL_AICPU_MAX_WORKERS);
        return 2;
    }
    if (sample_fashion_load(dataset_dir, count, &g_set) != SAMPLE_SUCCESS) {
        return 1;
    }
    if (svp_acl_init(NULL) != SVP_ACL_SUCCESS || svp_acl_rt_set_device(0) != SVP_ACL_SUCCESS ||
        svp_acl_rt_create_context(&g_context, 0) != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("runtime resources: %s", sample_err_msg());
        return 1;
    }
    ret = acl_aicpu_run(model_dir, workers, &differ, &correct);
    if (svp_acl_rt_destroy_context(g_context) != SVP_ACL_SUCCESS || svp_acl_rt_reset_device(0) != SVP_ACL_SUCCESS ||
        svp_acl_finalize() != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("releasing the runtime resources: %s", sample_err_msg());
        return 1;
    }
    if (ret != SAMPLE_SUCCESS) {
        return 1;
    }
    accuracy = 100.0 * (double)correct / (double)count;
    SAMPLE_INFO_LOG("%zu images on %zu AI-CPU worker(s): %zu result(s) differ from the all-NPU model, top-1 %.2f %%",
                    count, workers, differ, accuracy);
    sample_fashion_free(&g_set);
    if (differ != 0 || g_worker_errors != 0 || accuracy < min_accuracy) {
        SAMPLE_ERROR_LOG("expected the all-NPU model's results, no worker error and top-1 >= %.2f %%", min_accuracy);
        return 1;
    }
    printf("acl_aicpu OK\n");
    return 0;
}
