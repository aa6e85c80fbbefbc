/*
 * acl_multi_stream — guide §8.1 (Stream management) and §8.2 (synchronization) on the
 * Fashion-MNIST LeNet compiled by svp_atc.
 *
 *   acl_multi_stream [MODEL.om] [DATASET_DIR] [THREADS] [COUNT] [MIN_ACCURACY_PERCENT]
 *
 * 1. §8.3.1 reference: every image through svp_acl_mdl_execute (synchronous); §8.1.2 with
 *    the default stream (NULL): svp_acl_mdl_execute_async + svp_acl_rt_synchronize_stream(NULL).
 * 2. §8.1.4 several threads, several streams: THREADS threads, each creating its own context
 *    and stream, classify a slice of the images with svp_acl_mdl_execute_async, keeping
 *    ACL_MULTI_STREAM_DEPTH executions in flight, each followed by svp_acl_rt_record_event;
 *    a result is read after svp_acl_rt_synchronize_event (§8.2.2).
 * 3. §8.1.3 one thread, two streams, §8.2.4: ACL_MULTI_STREAM_CHAIN executions on stream 1,
 *    an event recorded after them, stream 2 waits for it (svp_acl_rt_stream_wait_event) and
 *    records a second event; after svp_acl_rt_synchronize_stream(stream 2) the first event
 *    must be complete and all of stream 1's results present. The time between an event
 *    before and the one after stream 1's work (svp_acl_rt_event_elapsed_time) must be > 0.
 * 4. §8.2.5: executions on both streams, then svp_acl_rt_synchronize_device: all done.
 *
 * Checks: every asynchronous result equals the synchronous one (scores within 1e-5), the
 * ordering checks above, and top-1 accuracy against the labels >= MIN_ACCURACY_PERCENT.
 * Prints "acl_multi_stream OK" on success.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "acl_multi_stream.h"
#include "sample_common.h"

static sample_model g_model;
static sample_fashion_set g_set;
static float *g_sync_scores; /* [image][10] */

typedef struct {
    size_t first, count; /* the thread's slice of images */
    size_t checked, mismatches, correct;
    int ret;
} acl_thread_job;

/* Compares the result of image `image` in `io` with the synchronous run. */
static int acl_check_result(sample_io *io, size_t image, size_t *mismatches, size_t *correct)
{
    float scores[SAMPLE_CLASS_NUM];
    const float *want = g_sync_scores + image * SAMPLE_CLASS_NUM;
    int k;
    if (sample_io_get_scores(&g_model, io, 0, scores) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    for (k = 0; k < SAMPLE_CLASS_NUM; k++) {
        if (fabsf(scores[k] - want[k]) > 1e-5f) {
            SAMPLE_ERROR_LOG("image %zu: score %d is %g, the synchronous run gave %g", image, k, scores[k], want[k]);
            (*mismatches)++;
            break;
        }
    }
    if (sample_argmax(scores, SAMPLE_CLASS_NUM) == g_set.labels[image]) {
        (*correct)++;
    }
    return SAMPLE_SUCCESS;
}

static int acl_sync_reference(void)
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

/* §8.1.4: one thread, its own context and stream; §8.2.2: event synchronization. */
static int acl_thread_work(acl_thread_job *job)
{
    svp_acl_rt_context context = NULL;
    svp_acl_rt_stream stream = NULL;
    svp_acl_rt_event events[ACL_MULTI_STREAM_DEPTH];
    sample_io ios[ACL_MULTI_STREAM_DEPTH];
    size_t pending[ACL_MULTI_STREAM_DEPTH];
    size_t i, slot;
    SAMPLE_CHECK_RET(svp_acl_rt_create_context(&context, 0));
    SAMPLE_CHECK_RET(svp_acl_rt_create_stream(&stream));
    for (slot = 0; slot < ACL_MULTI_STREAM_DEPTH; slot++) {
        SAMPLE_CHECK_RET(svp_acl_rt_create_event(&events[slot]));
        if (sample_io_create(&g_model, NULL, &ios[slot]) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        pending[slot] = (size_t)-1;
    }
    for (i = 0; i < job->count + ACL_MULTI_STREAM_DEPTH; i++) {
        slot = i % ACL_MULTI_STREAM_DEPTH;
        if (pending[slot] != (size_t)-1) { /* the slot's previous execution */
            SAMPLE_CHECK_RET(svp_acl_rt_synchronize_event(events[slot]));
            if (acl_check_result(&ios[slot], pending[slot], &job->mismatches, &job->correct) != SAMPLE_SUCCESS) {
                return SAMPLE_FAILURE;
            }
            job->checked++;
            pending[slot] = (size_t)-1;
        }
        if (i >= job->count) {
            continue;
        }
        if (sample_io_set_image(&g_model, &ios[slot], 0, g_set.pixels + (job->first + i) * SAMPLE_IMAGE_PIXELS) !=
            SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        SAMPLE_CHECK_RET(svp_acl_mdl_execute_async(g_model.model_id, ios[slot].input, ios[slot].output, stream));
        SAMPLE_CHECK_RET(svp_acl_rt_record_event(events[slot], stream));
        pending[slot] = job->first + i;
    }
    for (slot = 0; slot < ACL_MULTI_STREAM_DEPTH; slot++) {
        SAMPLE_CHECK_RET(svp_acl_rt_destroy_event(events[slot]));
        if (sample_io_destroy(&ios[slot]) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_stream(stream));
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_context(context));
    return SAMPLE_SUCCESS;
}

static void *acl_thread_main(void *arg)
{
    acl_thread_job *job = (acl_thread_job *)arg;
    job->ret = acl_thread_work(job);
    return NULL;
}

/* §8.1.1/§8.1.2: the default stream of the default context (svp_acl_rt_set_device), passed as
 * NULL, then synchronized with svp_acl_rt_synchronize_stream(NULL) (§8.2.3). */
static int acl_default_stream(size_t *mismatches, size_t *correct)
{
    sample_io io;
    size_t i;
    if (sample_io_create(&g_model, NULL, &io) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    for (i = 0; i < g_set.count; i++) {
        if (sample_io_set_image(&g_model, &io, 0, g_set.pixels + i * SAMPLE_IMAGE_PIXELS) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        SAMPLE_CHECK_RET(svp_acl_mdl_execute_async(g_model.model_id, io.input, io.output, NULL));
        SAMPLE_CHECK_RET(svp_acl_rt_synchronize_stream(NULL));
        if (acl_check_result(&io, i, mismatches, correct) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    return sample_io_destroy(&io);
}

/* §8.1.3 and §8.2.4: stream 2 waits for an event recorded after stream 1's work; §8.2.5. */
static int acl_cross_stream(size_t *mismatches, size_t *correct)
{
    svp_acl_rt_stream s1 = NULL, s2 = NULL;
    svp_acl_rt_event start = NULL, done1 = NULL, done2 = NULL;
    svp_acl_rt_event_status status;
    sample_io *ios = NULL;
    size_t chain = ACL_MULTI_STREAM_CHAIN < g_set.count ? ACL_MULTI_STREAM_CHAIN : g_set.count, i;
    float elapsed_ms = 0.0f;
    ios = (sample_io *)calloc(chain, sizeof(sample_io));
    SAMPLE_CHECK_EXPR_RET(ios != NULL, "out of memory");
    SAMPLE_CHECK_RET(svp_acl_rt_create_stream(&s1));
    SAMPLE_CHECK_RET(svp_acl_rt_create_stream(&s2));
    SAMPLE_CHECK_RET(svp_acl_rt_create_event_with_flag(&start, SVP_ACL_EVENT_TIME_LINE));
    SAMPLE_CHECK_RET(svp_acl_rt_create_event_with_flag(&done1, SVP_ACL_EVENT_TIME_LINE));
    SAMPLE_CHECK_RET(svp_acl_rt_create_event(&done2));
    for (i = 0; i < chain; i++) {
        if (sample_io_create(&g_model, NULL, &ios[i]) != SAMPLE_SUCCESS ||
            sample_io_set_image(&g_model, &ios[i], 0, g_set.pixels + i * SAMPLE_IMAGE_PIXELS) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    SAMPLE_CHECK_RET(svp_acl_rt_record_event(start, s1));
    for (i = 0; i < chain; i++) {
        SAMPLE_CHECK_RET(svp_acl_mdl_execute_async(g_model.model_id, ios[i].input, ios[i].output, s1));
    }
    SAMPLE_CHECK_RET(svp_acl_rt_record_event(done1, s1));
    SAMPLE_CHECK_RET(svp_acl_rt_stream_wait_event(s2, done1));
    SAMPLE_CHECK_RET(svp_acl_rt_record_event(done2, s2));
    SAMPLE_CHECK_RET(svp_acl_rt_synchronize_stream(s2));
    /* stream 2 is done, so stream 1's work before done1 must be too */
    SAMPLE_CHECK_RET(svp_acl_rt_query_event(done1, &status));
    SAMPLE_CHECK_EXPR_RET(status == SVP_ACL_EVENT_STATUS_COMPLETE,
                          "stream 2 finished before the event of stream 1 it waits for (status %d)", (int)status);
    for (i = 0; i < chain; i++) {
        if (acl_check_result(&ios[i], i, mismatches, correct) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    SAMPLE_CHECK_RET(svp_acl_rt_event_elapsed_time(&elapsed_ms, start, done1));
    SAMPLE_INFO_LOG("stream 2 waited for %zu executions on stream 1: %.3f ms between its events", chain,
                    (double)elapsed_ms);
    SAMPLE_CHECK_EXPR_RET(elapsed_ms > 0.0f, "no time elapsed over %zu executions", chain);

    /* §8.2.5: work on both streams, then wait for the whole device */
    for (i = 0; i < chain; i++) {
        SAMPLE_CHECK_RET(svp_acl_mdl_execute_async(g_model.model_id, ios[i].input, ios[i].output, i % 2 ? s2 : s1));
    }
    SAMPLE_CHECK_RET(svp_acl_rt_record_event(done1, s1));
    SAMPLE_CHECK_RET(svp_acl_rt_record_event(done2, s2));
    SAMPLE_CHECK_RET(svp_acl_rt_synchronize_device());
    SAMPLE_CHECK_RET(svp_acl_rt_query_event(done1, &status));
    SAMPLE_CHECK_EXPR_RET(status == SVP_ACL_EVENT_STATUS_COMPLETE, "stream 1 busy after synchronize_device");
    SAMPLE_CHECK_RET(svp_acl_rt_query_event(done2, &status));
    SAMPLE_CHECK_EXPR_RET(status == SVP_ACL_EVENT_STATUS_COMPLETE, "stream 2 busy after synchronize_device");
    for (i = 0; i < chain; i++) {
        if (acl_check_result(&ios[i], i, mismatches, correct) != SAMPLE_SUCCESS ||
            sample_io_destroy(&ios[i]) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    free(ios);
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_event(start));
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_event(done1));
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_event(done2));
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_stream(s2));
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_stream(s1));
    return SAMPLE_SUCCESS;
}

int main(int argc, char *argv[])
{
    const char *model_path = argc > 1 ? argv[1] : ACL_MULTI_STREAM_DEFAULT_MODEL;
    const char *dataset_dir = argc > 2 ? argv[2] : SAMPLE_DEFAULT_DATASET_DIR;
    size_t threads = argc > 3 ? (size_t)strtoul(argv[3], NULL, 10) : ACL_MULTI_STREAM_DEFAULT_THREADS;
    size_t count = argc > 4 ? (size_t)strtoul(argv[4], NULL, 10) : ACL_MULTI_STREAM_DEFAULT_COUNT;
    double min_accuracy = argc > 5 ? atof(argv[5]) : 0.0, accuracy;
    acl_thread_job jobs[ACL_MULTI_STREAM_MAX_THREADS];
    pthread_t tids[ACL_MULTI_STREAM_MAX_THREADS];
    size_t t, checked = 0, mismatches = 0, correct = 0, chain_mismatches = 0, chain_correct = 0;
    int failed = 0;

    if (threads == 0 || threads > ACL_MULTI_STREAM_MAX_THREADS || count < threads) {
        SAMPLE_ERROR_LOG("THREADS must be 1..%d and COUNT at least THREADS", ACL_MULTI_STREAM_MAX_THREADS);
        return 2;
    }
    if (sample_fashion_load(dataset_dir, count, &g_set) != SAMPLE_SUCCESS) {
        return 1;
    }
    if (svp_acl_init(NULL) != SVP_ACL_SUCCESS || svp_acl_rt_set_device(0) != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("runtime resources: %s", sample_err_msg());
        return 1;
    }
    if (sample_model_load(model_path, &g_model) != SAMPLE_SUCCESS ||
        sample_model_check_classifier(&g_model) != SAMPLE_SUCCESS || acl_sync_reference() != SAMPLE_SUCCESS) {
        return 1;
    }
    memset(jobs, 0, sizeof(jobs));
    for (t = 0; t < threads; t++) {
        jobs[t].first = count * t / threads;
        jobs[t].count = count * (t + 1) / threads - jobs[t].first;
        if (pthread_create(&tids[t], NULL, acl_thread_main, &jobs[t]) != 0) {
            SAMPLE_ERROR_LOG("pthread_create failed");
            return 1;
        }
    }
    for (t = 0; t < threads; t++) {
        pthread_join(tids[t], NULL);
        failed |= jobs[t].ret != SAMPLE_SUCCESS;
        checked += jobs[t].checked;
        mismatches += jobs[t].mismatches;
        correct += jobs[t].correct;
        SAMPLE_INFO_LOG("thread %zu: images %zu..%zu on its own context and stream", t, jobs[t].first,
                        jobs[t].first + jobs[t].count - 1);
    }
    if (failed || acl_default_stream(&chain_mismatches, &chain_correct) != SAMPLE_SUCCESS ||
        acl_cross_stream(&chain_mismatches, &chain_correct) != SAMPLE_SUCCESS) {
        return 1;
    }
    if (sample_model_unload(&g_model) != SAMPLE_SUCCESS || svp_acl_rt_reset_device(0) != SVP_ACL_SUCCESS ||
        svp_acl_finalize() != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("releasing the runtime resources: %s", sample_err_msg());
        return 1;
    }
    accuracy = 100.0 * (double)correct / (double)checked;
    SAMPLE_INFO_LOG("%zu threads: %zu results, %zu differ from the synchronous run, top-1 %.2f %%; default stream and two streams: "
                    "%zu differ", threads, checked, mismatches, accuracy, chain_mismatches);
    free(g_sync_scores);
    sample_fashion_free(&g_set);
    if (checked != count || mismatches != 0 || chain_mismatches != 0 || accuracy < min_accuracy) {
        SAMPLE_ERROR_LOG("expected %zu results equal to the synchronous run and top-1 >= %.2f %%", count, min_accuracy);
        return 1;
    }
    printf("acl_multi_stream OK\n");
    return 0;
}
