/*
 * acl_priority — guide §8.6 "task priority": the Fashion-MNIST LeNet compiled by svp_atc,
 * loaded twice with svp_acl_mdl_load_with_config as a high-priority model (priority 1,
 * SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL on) and a low-priority one (priority 6), each execution
 * classifying ACL_PRIORITY_BATCH images (svp_acl_mdl_set_dynamic_batch_size).
 *
 *   acl_priority [MODEL_DIR] [DATASET_DIR]
 *
 * MODEL_DIR holds lenet.om and lenet_preempt.om (the same LeNet compiled with
 * --preemptible=1).
 * 1. Priority scheduling: a queue of low-priority executions (stream L, an event after each)
 *    is submitted, then an equally long queue of high-priority ones (stream H). When H's last
 *    execution is done, fewer low-priority executions may have finished than in a control
 *    run where svp_acl_mdl_set_model_config gave both models the default priority 3, and L
 *    must not be finished.
 * 2. Promotion: a queue of high-priority executions on H, then ONE low-priority execution on
 *    L. Without promotion it finishes after H's whole queue; after svp_acl_mdl_set_model_config
 *    sets SVP_ACL_MDL_PRIORITY_UP_TOP_TIMEOUT_UINT32 (20 ms) on the low model, it is promoted
 *    to priority 0 while it waits and finishes before H's queue.
 * 3. Results: every execution's scores equal those of a synchronous execution of the same
 *    images, and the configured attributes read back with svp_acl_mdl_get_config_opt.
 * 4. Preemption: ONE long low-priority execution (ACL_PRIORITY_LONG_MS, many batch items),
 *    and 20 ms into it a high-priority execution on another stream. With lenet_preempt.om as
 *    the low-priority model the high-priority execution interrupts it at a segment boundary
 *    and finishes first; with lenet.om (not preemption-enabled) it waits for the whole long
 *    execution. The preempted execution resumes and its results are still right.
 * Each queue is sized from a timed execution to take about ACL_PRIORITY_QUEUE_MS.
 * Prints "acl_priority OK" on success.
 */
#include <stdlib.h>
#include <string.h>

#include "acl_priority.h"
#include "sample_common.h"

static sample_fashion_set g_set;
static size_t g_dyn_index;

typedef struct {
    sample_model model;
    sample_io io;
    const char *name;
} acl_prio_model;

/* Loads the model image with a priority configuration (guide: svp_acl_mdl_load_with_config). */
static int acl_prio_load(const char *path, int32_t priority, uint8_t preempt, acl_prio_model *pm)
{
    svp_acl_mdl_config_handle *handle = svp_acl_mdl_create_config_handle();
    size_t load_type = SVP_ACL_MDL_LOAD_FROM_MEM, i;
    int32_t got_priority = -1;
    sample_io_opts opts;
    SAMPLE_CHECK_EXPR_RET(handle != NULL, "svp_acl_mdl_create_config_handle failed: %s", sample_err_msg());
    if (sample_model_read(path, &pm->model) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_CHECK_RET(svp_acl_mdl_set_config_opt(handle, SVP_ACL_MDL_LOAD_TYPE_SIZET, &load_type, sizeof(load_type)));
    SAMPLE_CHECK_RET(svp_acl_mdl_set_config_opt(handle, SVP_ACL_MDL_MEM_ADDR_PTR, &pm->model.model_mem,
                                                sizeof(pm->model.model_mem)));
    SAMPLE_CHECK_RET(svp_acl_mdl_set_config_opt(handle, SVP_ACL_MDL_MEM_SIZET, &pm->model.model_size,
                                                sizeof(pm->model.model_size)));
    SAMPLE_CHECK_RET(svp_acl_mdl_set_config_opt(handle, SVP_ACL_MDL_PRIORITY_INT32, &priority, sizeof(priority)));
    SAMPLE_CHECK_RET(
        svp_acl_mdl_set_config_opt(handle, SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL, &preempt, sizeof(preempt)));
    SAMPLE_CHECK_RET(svp_acl_mdl_get_config_opt(handle, SVP_ACL_MDL_PRIORITY_INT32, &got_priority,
                                                sizeof(got_priority)));
    SAMPLE_CHECK_EXPR_RET(got_priority == priority, "priority %d read back as %d", priority, got_priority);
    SAMPLE_CHECK_RET(svp_acl_mdl_load_with_config(handle, &pm->model.model_id));
    pm->model.loaded = 1;
    SAMPLE_CHECK_RET(svp_acl_mdl_destroy_config_handle(handle));
    if (sample_model_get_desc(&pm->model) != SAMPLE_SUCCESS ||
        sample_model_check_classifier(&pm->model) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_CHECK_RET(svp_acl_mdl_get_input_index_by_name(pm->model.desc, SVP_ACL_DYNAMIC_TENSOR_NAME, &g_dyn_index));
    memset(&opts, 0, sizeof(opts));
    opts.batch = ACL_PRIORITY_BATCH;
    if (sample_io_create(&pm->model, &opts, &pm->io) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    for (i = 0; i < ACL_PRIORITY_BATCH; i++) {
        if (sample_io_set_image(&pm->model, &pm->io, i, g_set.pixels + i * SAMPLE_IMAGE_PIXELS) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    SAMPLE_CHECK_RET(svp_acl_mdl_set_dynamic_batch_size(pm->model.model_id, pm->io.input, g_dyn_index,
                                                        ACL_PRIORITY_BATCH));
    return SAMPLE_SUCCESS;
}

/* Scheduling attributes of a loaded model (svp_acl_mdl_set_model_config). */
static int acl_prio_set(acl_prio_model *pm, int32_t priority, uint32_t top_timeout_ms)
{
    svp_acl_mdl_config_handle *handle = svp_acl_mdl_create_config_handle();
    SAMPLE_CHECK_EXPR_RET(handle != NULL, "svp_acl_mdl_create_config_handle failed: %s", sample_err_msg());
    SAMPLE_CHECK_RET(svp_acl_mdl_set_config_opt(handle, SVP_ACL_MDL_PRIORITY_INT32, &priority, sizeof(priority)));
    SAMPLE_CHECK_RET(svp_acl_mdl_set_config_opt(handle, SVP_ACL_MDL_PRIORITY_UP_TOP_TIMEOUT_UINT32, &top_timeout_ms,
                                                sizeof(top_timeout_ms)));
    SAMPLE_CHECK_RET(svp_acl_mdl_set_model_config(pm->model.model_id, handle));
    SAMPLE_CHECK_RET(svp_acl_mdl_destroy_config_handle(handle));
    return SAMPLE_SUCCESS;
}

/* `n` executions of `pm` on `stream`, an event recorded after each (events may be NULL:
 * then one event `last` after them all). */
static int acl_prio_queue(acl_prio_model *pm, svp_acl_rt_stream stream, size_t n, svp_acl_rt_event *events,
                          svp_acl_rt_event last)
{
    size_t i;
    for (i = 0; i < n; i++) {
        SAMPLE_CHECK_RET(svp_acl_mdl_execute_async(pm->model.model_id, pm->io.input, pm->io.output, stream));
        if (events != NULL) {
            SAMPLE_CHECK_RET(svp_acl_rt_record_event(events[i], stream));
        }
    }
    if (last != NULL) {
        SAMPLE_CHECK_RET(svp_acl_rt_record_event(last, stream));
    }
    return SAMPLE_SUCCESS;
}

static int acl_prio_done(svp_acl_rt_event event, int *done)
{
    svp_acl_rt_event_status status;
    SAMPLE_CHECK_RET(svp_acl_rt_query_event(event, &status));
    *done = status == SVP_ACL_EVENT_STATUS_COMPLETE;
    return SAMPLE_SUCCESS;
}

/* Part 1: L's queue, then H's; returns how many of L's executions were done when H's were. */
static int acl_prio_race(acl_prio_model *low, acl_prio_model *high, svp_acl_rt_stream sl, svp_acl_rt_stream sh,
                         svp_acl_rt_event *levents, size_t n, size_t *low_done, int *low_finished)
{
    svp_acl_rt_event hlast = NULL;
    size_t i;
    int done;
    SAMPLE_CHECK_RET(svp_acl_rt_create_event(&hlast));
    if (acl_prio_queue(low, sl, n, levents, NULL) != SAMPLE_SUCCESS ||
        acl_prio_queue(high, sh, n, NULL, hlast) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_CHECK_RET(svp_acl_rt_synchronize_event(hlast));
    *low_done = 0;
    for (i = 0; i < n; i++) {
        if (acl_prio_done(levents[i], &done) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        *low_done += (size_t)done;
    }
    *low_finished = *low_done == n;
    SAMPLE_CHECK_RET(svp_acl_rt_synchronize_stream(sl));
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_event(hlast));
    return SAMPLE_SUCCESS;
}

/* Part 2: H's queue, then one L execution; reports whether H was still busy when L was done. */
static int acl_prio_promotion(acl_prio_model *low, acl_prio_model *high, svp_acl_rt_stream sl, svp_acl_rt_stream sh,
                              size_t n, int *high_busy)
{
    svp_acl_rt_event hlast = NULL, ldone = NULL;
    int done;
    SAMPLE_CHECK_RET(svp_acl_rt_create_event(&hlast));
    SAMPLE_CHECK_RET(svp_acl_rt_create_event(&ldone));
    if (acl_prio_queue(high, sh, n, NULL, hlast) != SAMPLE_SUCCESS ||
        acl_prio_queue(low, sl, 1, NULL, ldone) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_CHECK_RET(svp_acl_rt_synchronize_event(ldone));
    if (acl_prio_done(hlast, &done) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    *high_busy = !done;
    SAMPLE_CHECK_RET(svp_acl_rt_synchronize_stream(sh));
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_event(hlast));
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_event(ldone));
    return SAMPLE_SUCCESS;
}

/* A second dataset for `pm` holding `batch` items (image i % ACL_PRIORITY_BATCH in item i). */
static int acl_prio_long_io(acl_prio_model *pm, size_t batch, sample_io *io)
{
    sample_io_opts opts;
    size_t i;
    memset(&opts, 0, sizeof(opts));
    opts.batch = batch;
    if (sample_io_create(&pm->model, &opts, io) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    for (i = 0; i < batch; i++) {
        if (sample_io_set_image(&pm->model, io, i, g_set.pixels + (i % ACL_PRIORITY_BATCH) * SAMPLE_IMAGE_PIXELS) !=
            SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    SAMPLE_CHECK_RET(svp_acl_mdl_set_dynamic_batch_size(pm->model.model_id, io->input, g_dyn_index, batch));
    return SAMPLE_SUCCESS;
}

/* Part 4: a long execution of `low`, then one of `high` while it runs; reports whether the
 * long one was still running when the high-priority one was done. */
static int acl_prio_preempt(acl_prio_model *low, sample_io *long_io, acl_prio_model *high, svp_acl_rt_stream sl,
                            svp_acl_rt_stream sh, int *low_running, int *started)
{
    svp_acl_rt_event ldone = NULL, hdone = NULL;
    double t0;
    int done;
    SAMPLE_CHECK_RET(svp_acl_rt_create_event(&ldone));
    SAMPLE_CHECK_RET(svp_acl_rt_create_event(&hdone));
    SAMPLE_CHECK_RET(svp_acl_mdl_execute_async(low->model.model_id, long_io->input, long_io->output, sl));
    SAMPLE_CHECK_RET(svp_acl_rt_record_event(ldone, sl));
    t0 = sample_now_ms();
    while (sample_now_ms() - t0 < ACL_PRIORITY_LONG_HEAD_START_MS) {
        /* let the long execution get going (a busy wait keeps the sample C99) */
    }
    if (acl_prio_done(ldone, &done) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    *started = !done; /* still running when the high-priority work arrives */
    SAMPLE_CHECK_RET(svp_acl_mdl_execute_async(high->model.model_id, high->io.input, high->io.output, sh));
    SAMPLE_CHECK_RET(svp_acl_rt_record_event(hdone, sh));
    SAMPLE_CHECK_RET(svp_acl_rt_synchronize_event(hdone));
    if (acl_prio_done(ldone, &done) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    *low_running = !done;
    SAMPLE_CHECK_RET(svp_acl_rt_synchronize_event(ldone));
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_event(ldone));
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_event(hdone));
    return SAMPLE_SUCCESS;
}

/* The long execution's items equal the synchronous results of their images. */
static int acl_prio_check_long(acl_prio_model *pm, sample_io *io, size_t batch, const float *reference)
{
    float scores[SAMPLE_CLASS_NUM];
    size_t i;
    for (i = 0; i < batch; i++) {
        if (sample_io_get_scores(&pm->model, io, i, scores) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        SAMPLE_CHECK_EXPR_RET(memcmp(scores, reference + (i % ACL_PRIORITY_BATCH) * SAMPLE_CLASS_NUM,
                                     sizeof(scores)) == 0,
                              "%s model, long execution item %zu: the scores differ from the synchronous execution",
                              pm->name, i);
    }
    return SAMPLE_SUCCESS;
}

/* The outputs of the last executions equal a synchronous execution's. */
static int acl_prio_check_outputs(acl_prio_model *pm, const float *reference)
{
    float scores[SAMPLE_CLASS_NUM];
    size_t i;
    for (i = 0; i < ACL_PRIORITY_BATCH; i++) {
        if (sample_io_get_scores(&pm->model, &pm->io, i, scores) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        SAMPLE_CHECK_EXPR_RET(memcmp(scores, reference + i * SAMPLE_CLASS_NUM, sizeof(scores)) == 0,
                              "%s model, image %zu: the scores differ from the synchronous execution", pm->name, i);
    }
    return SAMPLE_SUCCESS;
}

static int acl_prio_run(const char *model_dir)
{
    acl_prio_model low, high, preemptible;
    sample_io long_plain, long_preempt;
    char model_path[1024];
    size_t long_batch;
    int started, low_running_plain, low_running_preempt;
    svp_acl_rt_stream sl = NULL, sh = NULL;
    svp_acl_rt_event *levents = NULL;
    float reference[ACL_PRIORITY_BATCH * SAMPLE_CLASS_NUM];
    size_t n, n_events, i, low_done_prio, low_done_equal;
    int low_finished, high_busy_plain, high_busy_promoted;
    double t0, exec_ms;

    memset(&low, 0, sizeof(low));
    memset(&high, 0, sizeof(high));
    memset(&preemptible, 0, sizeof(preemptible));
    low.name = "low";
    high.name = "high";
    preemptible.name = "low preemptible";
    snprintf(model_path, sizeof(model_path), "%s/lenet.om", model_dir);
    if (acl_prio_load(model_path, ACL_PRIORITY_LOW, 0, &low) != SAMPLE_SUCCESS ||
        acl_prio_load(model_path, ACL_PRIORITY_HIGH, 1, &high) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    snprintf(model_path, sizeof(model_path), "%s/lenet_preempt.om", model_dir);
    if (acl_prio_load(model_path, ACL_PRIORITY_LOW, 0, &preemptible) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    /* the reference, and the time of one execution (the fastest of a few after a warm-up:
     * a queue may then only take longer than planned, which keeps the checks valid) */
    SAMPLE_CHECK_RET(svp_acl_mdl_execute(high.model.model_id, high.io.input, high.io.output));
    exec_ms = 1e9;
    for (i = 0; i < 5; i++) {
        double ms;
        t0 = sample_now_ms();
        SAMPLE_CHECK_RET(svp_acl_mdl_execute(high.model.model_id, high.io.input, high.io.output));
        ms = sample_now_ms() - t0;
        exec_ms = ms < exec_ms ? ms : exec_ms;
    }
    for (i = 0; i < ACL_PRIORITY_BATCH; i++) {
        if (sample_io_get_scores(&high.model, &high.io, i, reference + i * SAMPLE_CLASS_NUM) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    n = (size_t)(ACL_PRIORITY_QUEUE_MS / (exec_ms > 0.01 ? exec_ms : 0.01)) + 1;
    n = n < 20 ? 20 : (n > ACL_PRIORITY_MAX_QUEUE ? ACL_PRIORITY_MAX_QUEUE : n);
    SAMPLE_INFO_LOG("one execution (%d images) takes %.3f ms: queues of %zu executions", ACL_PRIORITY_BATCH, exec_ms,
                    n);
    /* n may grow below (part 2 doubles its queue); the events are for part 1's n */
    n_events = n;
    levents = (svp_acl_rt_event *)calloc(n_events, sizeof(svp_acl_rt_event));
    SAMPLE_CHECK_EXPR_RET(levents != NULL, "out of memory");
    for (i = 0; i < n_events; i++) {
        SAMPLE_CHECK_RET(svp_acl_rt_create_event(&levents[i]));
    }
    SAMPLE_CHECK_RET(svp_acl_rt_create_stream(&sl));
    SAMPLE_CHECK_RET(svp_acl_rt_create_stream(&sh));

    /* 1. priority 6 vs 1, then the control run with both at the default 3 */
    if (acl_prio_race(&low, &high, sl, sh, levents, n, &low_done_prio, &low_finished) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_INFO_LOG("priority %d vs %d: %zu of %zu low-priority executions done when the high-priority queue was",
                    ACL_PRIORITY_LOW, ACL_PRIORITY_HIGH, low_done_prio, n);
    SAMPLE_CHECK_EXPR_RET(!low_finished, "the low-priority queue finished before the high-priority one");
    if (acl_prio_check_outputs(&low, reference) != SAMPLE_SUCCESS ||
        acl_prio_check_outputs(&high, reference) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    if (acl_prio_set(&low, ACL_PRIORITY_DEFAULT, 0) != SAMPLE_SUCCESS ||
        acl_prio_set(&high, ACL_PRIORITY_DEFAULT, 0) != SAMPLE_SUCCESS ||
        acl_prio_race(&low, &high, sl, sh, levents, n, &low_done_equal, &low_finished) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_INFO_LOG("both at priority %d: %zu of %zu executions of the first queue done when the second queue was",
                    ACL_PRIORITY_DEFAULT, low_done_equal, n);
    SAMPLE_CHECK_EXPR_RET(low_done_prio < low_done_equal,
                          "priorities made no difference (%zu low-priority executions done vs %zu at equal priority)",
                          low_done_prio, low_done_equal);

    /* 2. promotion: one low-priority execution behind a high-priority queue */
    if (acl_prio_set(&low, ACL_PRIORITY_LOW, 0) != SAMPLE_SUCCESS ||
        acl_prio_set(&high, ACL_PRIORITY_HIGH, 0) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    /* the high-priority queue must outlast the promotion timeout clearly: grow it if the
     * timed execution above was slower than the queue's executions turn out to be */
    for (;;) {
        double queue_ms;
        t0 = sample_now_ms();
        if (acl_prio_promotion(&low, &high, sl, sh, n, &high_busy_plain) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        queue_ms = sample_now_ms() - t0;
        if (queue_ms >= 4.0 * ACL_PRIORITY_TOP_TIMEOUT_MS || 2 * n > ACL_PRIORITY_MAX_QUEUE) {
            SAMPLE_INFO_LOG("high-priority queue of %zu executions: %.1f ms", n, queue_ms);
            break;
        }
        n *= 2;
    }
    SAMPLE_INFO_LOG("without promotion the low-priority execution finished %s the high-priority queue",
                    high_busy_plain ? "BEFORE" : "after");
    SAMPLE_CHECK_EXPR_RET(!high_busy_plain, "a low-priority execution overtook a high-priority queue unpromoted");
    if (acl_prio_set(&low, ACL_PRIORITY_LOW, ACL_PRIORITY_TOP_TIMEOUT_MS) != SAMPLE_SUCCESS ||
        acl_prio_promotion(&low, &high, sl, sh, n, &high_busy_promoted) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_INFO_LOG("promoted to the top after %d ms, it finished %s the high-priority queue",
                    ACL_PRIORITY_TOP_TIMEOUT_MS, high_busy_promoted ? "before" : "AFTER");
    SAMPLE_CHECK_EXPR_RET(high_busy_promoted, "the promoted execution still waited for the whole high-priority queue");
    if (acl_prio_check_outputs(&low, reference) != SAMPLE_SUCCESS ||
        acl_prio_check_outputs(&high, reference) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }

    /* 4. preemption: a long low-priority execution, not preemption-enabled and then enabled */
    long_batch = (size_t)(ACL_PRIORITY_LONG_MS * ACL_PRIORITY_BATCH / (exec_ms > 0.01 ? exec_ms : 0.01)) + 1;
    long_batch = long_batch > ACL_PRIORITY_LONG_MAX_BATCH ? ACL_PRIORITY_LONG_MAX_BATCH : long_batch;
    if (acl_prio_long_io(&low, long_batch, &long_plain) != SAMPLE_SUCCESS ||
        acl_prio_long_io(&preemptible, long_batch, &long_preempt) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    if (acl_prio_preempt(&low, &long_plain, &high, sl, sh, &low_running_plain, &started) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_CHECK_EXPR_RET(started, "the long execution (%zu items) ended within %.0f ms: too short to show preemption",
                          long_batch, ACL_PRIORITY_LONG_HEAD_START_MS);
    SAMPLE_INFO_LOG("lenet.om (not preemption-enabled), one execution of %zu images: the high-priority execution "
                    "finished %s it", long_batch, low_running_plain ? "BEFORE" : "after");
    SAMPLE_CHECK_EXPR_RET(!low_running_plain, "a model compiled without --preemptible=1 was interrupted");
    if (acl_prio_preempt(&preemptible, &long_preempt, &high, sl, sh, &low_running_preempt, &started) !=
        SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_CHECK_EXPR_RET(started, "the long execution (%zu items) ended within %.0f ms: too short to show preemption",
                          long_batch, ACL_PRIORITY_LONG_HEAD_START_MS);
    SAMPLE_INFO_LOG("lenet_preempt.om (--preemptible=1): the high-priority execution preempted it and finished %s it",
                    low_running_preempt ? "before" : "AFTER");
    SAMPLE_CHECK_EXPR_RET(low_running_preempt, "the high-priority execution did not preempt lenet_preempt.om");
    if (acl_prio_check_long(&low, &long_plain, long_batch, reference) != SAMPLE_SUCCESS ||
        acl_prio_check_long(&preemptible, &long_preempt, long_batch, reference) != SAMPLE_SUCCESS ||
        acl_prio_check_outputs(&high, reference) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }

    for (i = 0; i < n_events; i++) {
        SAMPLE_CHECK_RET(svp_acl_rt_destroy_event(levents[i]));
    }
    free(levents);
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_stream(sl));
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_stream(sh));
    if (sample_io_destroy(&long_plain) != SAMPLE_SUCCESS || sample_io_destroy(&long_preempt) != SAMPLE_SUCCESS ||
        sample_io_destroy(&preemptible.io) != SAMPLE_SUCCESS ||
        sample_model_unload(&preemptible.model) != SAMPLE_SUCCESS || sample_io_destroy(&low.io) != SAMPLE_SUCCESS ||
        sample_io_destroy(&high.io) != SAMPLE_SUCCESS || sample_model_unload(&low.model) != SAMPLE_SUCCESS ||
        sample_model_unload(&high.model) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    return SAMPLE_SUCCESS;
}

int main(int argc, char *argv[])
{
    const char *model_dir = argc > 1 ? argv[1] : ACL_PRIORITY_DEFAULT_MODEL_DIR;
    const char *dataset_dir = argc > 2 ? argv[2] : SAMPLE_DEFAULT_DATASET_DIR;
    int ret;
    if (sample_fashion_load(dataset_dir, ACL_PRIORITY_BATCH, &g_set) != SAMPLE_SUCCESS) {
        return 1;
    }
    if (svp_acl_init(NULL) != SVP_ACL_SUCCESS || svp_acl_rt_set_device(0) != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("runtime resources: %s", sample_err_msg());
        return 1;
    }
    ret = acl_prio_run(model_dir);
    if (svp_acl_rt_reset_device(0) != SVP_ACL_SUCCESS || svp_acl_finalize() != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("releasing the runtime resources: %s", sample_err_msg());
        return 1;
    }
    sample_fashion_free(&g_set);
    if (ret != SAMPLE_SUCCESS) {
        return 1;
    }
    printf("acl_priority OK\n");
    return 0;
}
