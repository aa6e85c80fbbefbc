/*
 * prof_api_sample: profiling with the profiling API, the way example 2 of the vendor
 * guide's profiling section (seed 003 §8.7) does it, with the public C API only.
 *
 *   prof_api_sample <dir> [<output dir>]
 *
 * <dir> holds classifier.om, its test data and classifier.layers.txt (make_sample_model).
 * The data goes to a JOB directory under <output dir>, which must exist and is kept (look
 * at it, or turn it into summaries with tools/svp_prof); without <output dir> a temporary
 * directory is used and removed at the end.
 *
 * 1. initialises, loads the classifier and builds its datasets (vendor procedure);
 * 2. svp_acl_prof_init(path, strlen(path));
 * 3. svp_acl_prof_create_config({0}, 1, 0, NULL, AICORE_METRICS | AICPU | ACL_API |
 *    TASK_TIME) and svp_acl_prof_start;
 * 4. executes the model synchronously and asynchronously on a stream (an AI-CPU thread
 *    serving the AI-CPU softmax), checking every result;
 * 5. releases the datasets and unloads the model;
 * 6. svp_acl_prof_stop, svp_acl_prof_destroy_config, svp_acl_prof_finalize;
 * 7. releases the stream and the device and finalizes.
 * Then it checks the JOB directory (docs/profiling.md): exactly one new JOB directory,
 * info.json and a complete end_info.json whose record counts match the files, one
 * aicore.jsonl line per NPU layer per execution and one aicpu.jsonl line per AI-CPU layer
 * per execution (per operator name), one submitted and one ended task per execution, and
 * the execute calls in acl_api.jsonl. Exits non-zero on any API error or mismatch; prints
 * "prof_api_sample OK" at the end.
 */
#define _POSIX_C_SOURCE 200809L

#include <string.h>

#include "acl/svp_acl_ext.h"
#include "prof_sample_util.h"

#define SYNC_RUNS 3
#define ASYNC_RUNS 3
#define RUNS (SYNC_RUNS + ASYNC_RUNS)

static void check_job(const char *job, const sample_model_t *m) {
    char path[SAMPLE_PATH_MAX], needle[SVP_ACL_PROF_MAX_OP_NAME_LEN + 16];
    char *info;
    long n;
    size_t i;

    sample_path_join(path, sizeof path, job, "info.json");
    info = sample_read_text(path);
    sample_expect(info != NULL, "%s is missing", path);
    if (info != NULL) {
        sample_expect(strstr(info, "\"format\": \"svp-acl-profile\"") != NULL, "info.json: not an svp-acl profile");
        sample_expect(strstr(info, "\"source\": \"api\"") != NULL, "info.json: source is not \"api\"");
        sample_expect(strstr(info, "\"acl_api\"") != NULL && strstr(info, "\"task_time\"") != NULL &&
                          strstr(info, "\"aicore_metrics\"") != NULL && strstr(info, "\"aicpu_trace\"") != NULL,
                      "info.json: data_types lacks one of the four requested");
        free(info);
    }
    sample_check_end_info(job);

    /* Operators: every layer once per execution, NPU layers in aicore.jsonl and the AI-CPU
     * ones in aicpu.jsonl, all of this model. */
    sample_path_join(path, sizeof path, job, "data/aicore.jsonl");
    n = sample_count_lines(path);
    printf("  data/aicore.jsonl  %4ld lines (%d executions x %zu NPU operators)\n", n, RUNS, m->npu_layers);
    sample_expect(n == (long)(RUNS * m->npu_layers), "aicore.jsonl has %ld lines, expected %zu", n,
                  RUNS * m->npu_layers);
    snprintf(needle, sizeof needle, "{\"model\":%u,", m->id);
    sample_expect(sample_count_lines_with(path, needle) == n, "aicore.jsonl has lines of another model");
    sample_expect(sample_count_lines_with(path, "\"unit\":\"npu\"") == n, "aicore.jsonl has non-NPU lines");
    sample_path_join(path, sizeof path, job, "data/aicpu.jsonl");
    n = sample_count_lines(path);
    printf("  data/aicpu.jsonl   %4ld lines (%d executions x %zu AI-CPU operators)\n", n, RUNS, m->aicpu_layers);
    sample_expect(n == (long)(RUNS * m->aicpu_layers), "aicpu.jsonl has %ld lines, expected %zu", n,
                  RUNS * m->aicpu_layers);
    for (i = 0; i < m->num_layers; i++) {
        /* The closing quote keeps "stem" from matching "stem_relu". */
        sample_path_join(path, sizeof path, job, m->layers[i].aicpu ? "data/aicpu.jsonl" : "data/aicore.jsonl");
        snprintf(needle, sizeof needle, "\"name\":\"%s\"", m->layers[i].name);
        n = sample_count_lines_with(path, needle);
        sample_expect(n == RUNS, "%s appears %ld times in %s, expected %d", m->layers[i].name, n, path, RUNS);
    }

    /* Tasks: one per execution, each submitted and ended. */
    sample_path_join(path, sizeof path, job, "data/task.jsonl");
    n = sample_count_lines_with(path, "\"ev\":\"submit\"");
    printf("  data/task.jsonl    %4ld lines, %ld task(s) submitted\n", sample_count_lines(path), n);
    sample_expect(n == RUNS, "task.jsonl: %ld tasks submitted, expected %d", n, RUNS);
    n = sample_count_lines_with(path, "\"ev\":\"end\"");
    sample_expect(n == RUNS, "task.jsonl: %ld tasks ended, expected %d", n, RUNS);

    /* API calls: the closing quote tells svp_acl_mdl_execute from _execute_async. */
    sample_path_join(path, sizeof path, job, "data/acl_api.jsonl");
    n = sample_count_lines_with(path, "\"name\":\"svp_acl_mdl_execute\"");
    printf("  data/acl_api.jsonl %4ld lines, svp_acl_mdl_execute %ld time(s)\n", sample_count_lines(path), n);
    sample_expect(n == SYNC_RUNS, "acl_api.jsonl: svp_acl_mdl_execute %ld times, expected %d", n, SYNC_RUNS);
    n = sample_count_lines_with(path, "\"name\":\"svp_acl_mdl_execute_async\"");
    sample_expect(n == ASYNC_RUNS, "acl_api.jsonl: svp_acl_mdl_execute_async %ld times, expected %d", n, ASYNC_RUNS);
}

int main(int argc, char **argv) {
    sample_model_t model;
    sample_io_t sync_io, async_io[ASYNC_RUNS];
    svp_acl_rt_context ctx;
    svp_acl_rt_stream stream;
    sample_aicpu_worker_t worker;
    svp_acl_prof_config *config;
    sample_name_list_t before, after;
    char temp_dir[SAMPLE_PATH_MAX], job[SAMPLE_PATH_MAX];
    const char *prof_path;
    uint32_t device_id_list[1] = {0};
    size_t k, jobs;

    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s <dir with classifier.om> [<existing output dir>]\n", argv[0]);
        return 2;
    }
    if (argc == 3) {
        prof_path = argv[2];
    } else {
        sample_make_temp_dir(temp_dir, sizeof temp_dir, "prof_api_sample");
        prof_path = temp_dir;
    }
    /* An output directory may hold the JOB directories of earlier runs: ours is the new one. */
    sample_list_jobs(prof_path, &before);

    /* 1. Resources, model and datasets. */
    CHECK(svp_acl_init(NULL));
    CHECK(svp_acl_rt_set_device(0));
    CHECK(svp_acl_rt_get_current_context(&ctx));
    CHECK(svp_acl_rt_create_stream(&stream));
    sample_model_load(&model, argv[1]);
    sample_io_create(&model, &sync_io);
    for (k = 0; k < ASYNC_RUNS; k++) sample_io_create(&model, &async_io[k]);

    /* 2. Where the data goes. */
    CHECK(svp_acl_prof_init(prof_path, strlen(prof_path)));
    /* 3. What is collected, on which devices; aicore_metrics 0 is ArithmeticUtilization. */
    config = svp_acl_prof_create_config(device_id_list, 1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, NULL,
                                        SVP_ACL_PROF_AICORE_METRICS | SVP_ACL_PROF_AICPU | SVP_ACL_PROF_ACL_API |
                                            SVP_ACL_PROF_TASK_TIME);
    if (config == NULL) {
        fprintf(stderr, "FAILED svp_acl_prof_create_config: %s\n", svp_acl_get_recent_err_msg());
        return 1;
    }
    CHECK(svp_acl_prof_start(config));

    /* 4. Execute, synchronously and then asynchronously on one stream (one dataset set per
     * execution in flight; the AI-CPU layer needs an application thread). */
    for (k = 0; k < SYNC_RUNS; k++) {
        sample_io_fill(&model, &sync_io, k);
        CHECK(svp_acl_mdl_execute(model.id, sync_io.input, sync_io.output));
        sample_expect(sample_io_check(&model, &sync_io, k), "synchronous execution %zu: wrong probabilities", k);
    }
    sample_aicpu_worker_start(&worker, ctx);
    for (k = 0; k < ASYNC_RUNS; k++) {
        sample_io_fill(&model, &async_io[k], SYNC_RUNS + k);
        CHECK(svp_acl_mdl_execute_async(model.id, async_io[k].input, async_io[k].output, stream));
    }
    CHECK(svp_acl_rt_synchronize_stream(stream));
    sample_expect(sample_aicpu_worker_stop(&worker) == 0, "the AI-CPU thread failed");
    for (k = 0; k < ASYNC_RUNS; k++) {
        sample_expect(sample_io_check(&model, &async_io[k], SYNC_RUNS + k),
                      "asynchronous execution %zu: wrong probabilities", k);
    }

    /* 5. Results are checked; release the datasets and unload the model (the guide does
     * this before stopping: the records of finished executions are already collected). */
    sample_io_destroy(&sync_io);
    for (k = 0; k < ASYNC_RUNS; k++) sample_io_destroy(&async_io[k]);
    sample_model_unload(&model);

    /* 6. Stop collecting, release the configuration, close the session (end_info.json). */
    CHECK(svp_acl_prof_stop(config));
    CHECK(svp_acl_prof_destroy_config(config));
    CHECK(svp_acl_prof_finalize());

    /* 7. Release the runtime resources. */
    CHECK(svp_acl_rt_destroy_stream(stream));
    CHECK(svp_acl_rt_reset_device(0));
    CHECK(svp_acl_finalize());

    /* The JOB directory (the model's id and layer list stay valid after the unload). */
    sample_list_jobs(prof_path, &after);
    jobs = sample_new_jobs(prof_path, &before, &after, job, sizeof job);
    sample_expect(jobs == 1, "%zu new JOB directories under %s, expected 1", jobs, prof_path);
    if (jobs == 1) {
        printf("profiling data in %s\n", job);
        check_job(job, &model);
    }
    sample_free_list(&before);
    sample_free_list(&after);
    if (argc == 2 && sample_remove_tree(temp_dir) != 0) {
        sample_expect(0, "cannot remove %s", temp_dir);
    }
    if (g_sample_mismatches != 0) {
        fprintf(stderr, "prof_api_sample FAILED: %d mismatch(es)\n", g_sample_mismatches);
        return 1;
    }
    printf("prof_api_sample OK\n");
    return 0;
}
