/*
 * prof_acljson_sample: profiling switched on by the "profiler" section of the JSON file
 * given to svp_acl_init (seed 003 §8.7, "JSON文件格式"), with the public C API only — the
 * application itself makes no profiling call.
 *
 *   prof_acljson_sample <dir> [<work dir>]
 *
 * <dir> holds classifier.om, its test data and classifier.layers.txt (make_sample_model).
 * The sample writes <work dir>/acl.json and profiles into <work dir>/prof_output (both
 * kept); without <work dir> a temporary directory is used and removed at the end.
 *
 * 1. writes acl.json: "switch" on, "output" the prof_output directory (created first, as
 *    the guide requires), "interval" "2", "aic_metrics" ArithmeticUtilization, "aicpu" on,
 *    "acl_api" on;
 * 2. svp_acl_init(acl.json), loads the classifier, builds its datasets (vendor procedure)
 *    and runs 6 synchronous inferences, checking every result;
 * 3. releases everything and calls svp_acl_finalize, which ends the profiling session.
 * Then it checks the JOB directory (docs/profiling.md): one new JOB directory, without
 * end_info.json while the library is initialised and complete after svp_acl_finalize;
 * "source": "acl.json" and "interval": 2 in info.json; inferences 1, 3 and 5 saved — three
 * tasks in task.jsonl, and the operators in aicore.jsonl / aicpu.jsonl lie inside exactly
 * those three svp_acl_mdl_execute calls of acl_api.jsonl, one line per layer each — while
 * all 6 API calls are recorded (interval applies to inferences only). Exits non-zero on
 * any API error or mismatch; prints "prof_acljson_sample OK" at the end.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "prof_sample_util.h"

#define RUNS 6
#define INTERVAL 2
#define SAVED ((RUNS + INTERVAL - 1) / INTERVAL) /* inferences 1, 1 + INTERVAL, ... */

/* The svp_acl_mdl_execute calls of acl_api.jsonl, as [start, end] windows. */
typedef struct {
    unsigned long long start[RUNS + 1], end[RUNS + 1];
    size_t count;
    int overflow;
} windows_t;

/* Operators per execute window, from aicore.jsonl or aicpu.jsonl. */
typedef struct {
    const windows_t *w;
    unsigned long long model;
    long per_run[RUNS];
    long outside, foreign;
} op_tally_t;

static void collect_execute(const char *line, void *arg) {
    windows_t *w = (windows_t *)arg;
    unsigned long long s, e;
    /* The closing quote excludes svp_acl_mdl_execute_async. */
    if (strstr(line, "\"name\":\"svp_acl_mdl_execute\"") == NULL) return;
    if (w->count == RUNS + 1 || !sample_json_u64(line, NULL, "start_ns", &s) ||
        !sample_json_u64(line, NULL, "end_ns", &e)) {
        w->overflow = 1;
        return;
    }
    w->start[w->count] = s;
    w->end[w->count] = e;
    w->count++;
}

/* The writer drains records close to, not exactly in, time order (docs/profiling.md):
 * sort the windows before numbering the inferences. */
static void sort_windows(windows_t *w) {
    size_t i, j;
    for (i = 1; i < w->count; i++) {
        for (j = i; j > 0 && w->start[j - 1] > w->start[j]; j--) {
            unsigned long long s = w->start[j], e = w->end[j];
            w->start[j] = w->start[j - 1];
            w->end[j] = w->end[j - 1];
            w->start[j - 1] = s;
            w->end[j - 1] = e;
        }
    }
}

static void tally_op(const char *line, void *arg) {
    op_tally_t *t = (op_tally_t *)arg;
    unsigned long long model, s, e;
    size_t i;
    if (!sample_json_u64(line, NULL, "model", &model) || !sample_json_u64(line, NULL, "start_ns", &s) ||
        !sample_json_u64(line, NULL, "end_ns", &e) || model != t->model) {
        t->foreign++;
        return;
    }
    for (i = 0; i < t->w->count && i < RUNS; i++) {
        if (s >= t->w->start[i] && e <= t->w->end[i]) {
            t->per_run[i]++;
            return;
        }
    }
    t->outside++;
}

static void check_ops(const char *job, const char *file, const windows_t *w, const sample_model_t *m,
                      size_t layers) {
    char path[SAMPLE_PATH_MAX];
    op_tally_t t;
    long lines;
    size_t i;
    memset(&t, 0, sizeof t);
    t.w = w;
    t.model = m->id;
    sample_path_join(path, sizeof path, job, file);
    lines = sample_for_each_line(path, tally_op, &t);
    printf("  %-18s %3ld lines:", file, lines);
    for (i = 0; i < RUNS; i++) printf(" %ld", t.per_run[i]);
    printf(" per inference\n");
    sample_expect(lines == (long)(SAVED * layers), "%s has %ld lines, expected %d saved inferences x %zu", file,
                  lines, SAVED, layers);
    sample_expect(t.foreign == 0 && t.outside == 0, "%s: %ld lines of another model, %ld outside every execute call",
                  file, t.foreign, t.outside);
    for (i = 0; i < RUNS; i++) {
        long want = i % INTERVAL == 0 ? (long)layers : 0;
        sample_expect(t.per_run[i] == want, "%s: inference %zu has %ld operators, expected %ld", file, i + 1,
                      t.per_run[i], want);
    }
}

static void check_job(const char *job, const sample_model_t *m) {
    char path[SAMPLE_PATH_MAX];
    char *info;
    unsigned long long interval = 0;
    windows_t w;
    long n;

    sample_path_join(path, sizeof path, job, "info.json");
    info = sample_read_text(path);
    sample_expect(info != NULL, "%s is missing", path);
    if (info != NULL) {
        sample_expect(strstr(info, "\"source\": \"acl.json\"") != NULL, "info.json: source is not \"acl.json\"");
        sample_expect(sample_json_u64(info, NULL, "interval", &interval) && interval == INTERVAL,
                      "info.json: interval %llu, expected %d", interval, INTERVAL);
        sample_expect(strstr(info, "\"acl_api\"") != NULL && strstr(info, "\"task_time\"") != NULL &&
                          strstr(info, "\"aicore_metrics\"") != NULL && strstr(info, "\"aicpu_trace\"") != NULL,
                      "info.json: data_types lacks one of acl_api, task_time, aicore_metrics, aicpu_trace");
        free(info);
    }
    sample_check_end_info(job);

    /* Every API call is recorded; interval samples inferences only. */
    memset(&w, 0, sizeof w);
    sample_path_join(path, sizeof path, job, "data/acl_api.jsonl");
    sample_for_each_line(path, collect_execute, &w);
    sort_windows(&w);
    printf("  data/acl_api.jsonl %3ld lines, svp_acl_mdl_execute %zu time(s)\n", sample_count_lines(path), w.count);
    sample_expect(!w.overflow && w.count == RUNS, "acl_api.jsonl: %zu svp_acl_mdl_execute calls, expected %d",
                  w.count, RUNS);

    sample_path_join(path, sizeof path, job, "data/task.jsonl");
    n = sample_count_lines_with(path, "\"ev\":\"submit\"");
    printf("  data/task.jsonl    %3ld lines, %ld task(s) submitted\n", sample_count_lines(path), n);
    sample_expect(n == SAVED, "task.jsonl: %ld tasks submitted, expected %d of %d inferences", n, SAVED, RUNS);

    if (w.count == RUNS) {
        check_ops(job, "data/aicore.jsonl", &w, m, m->npu_layers);
        check_ops(job, "data/aicpu.jsonl", &w, m, m->aicpu_layers);
    }
}

static void write_acl_json(const char *path, const char *output) {
    FILE *f = fopen(path, "w");
    int ok;
    if (f == NULL) {
        fprintf(stderr, "cannot create %s: %s\n", path, strerror(errno));
        exit(1);
    }
    /* The guide's section; only "output" and "interval" differ from its example. */
    fprintf(f,
            "{\n"
            "  \"profiler\": {\n"
            "    \"switch\": \"on\",\n"
            "    \"output\": \"%s\",\n"
            "    \"interval\": \"%d\",\n"
            "    \"aic_metrics\": \"ArithmeticUtilization\",\n"
            "    \"aicpu\": \"on\",\n"
            "    \"acl_api\": \"on\"\n"
            "  }\n"
            "}\n",
            output, INTERVAL);
    ok = !ferror(f);
    if (fclose(f) != 0 || !ok) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

int main(int argc, char **argv) {
    sample_model_t model;
    sample_io_t io;
    sample_name_list_t before, after;
    char work[SAMPLE_PATH_MAX], output[SAMPLE_PATH_MAX], acl_json[SAMPLE_PATH_MAX], job[SAMPLE_PATH_MAX];
    char end_info[SAMPLE_PATH_MAX];
    size_t k, jobs;

    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s <dir with classifier.om> [<existing work dir>]\n", argv[0]);
        return 2;
    }
    if (argc == 3) {
        /* Written into a JSON string as is: keep it free of what would need escaping. */
        if (strlen(argv[2]) >= sizeof work || strpbrk(argv[2], "\"\\") != NULL) {
            fprintf(stderr, "%s: use a shorter work directory without quotes or backslashes\n", argv[2]);
            return 2;
        }
        strcpy(work, argv[2]);
    } else {
        sample_make_temp_dir(work, sizeof work, "prof_acljson_sample");
    }
    sample_path_join(output, sizeof output, work, "prof_output");
    sample_path_join(acl_json, sizeof acl_json, work, "acl.json");

    /* 1. The output directory must exist beforehand: the library would otherwise fall back
     * to the application's directory. */
    if (mkdir(output, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot create %s: %s\n", output, strerror(errno));
        return 1;
    }
    write_acl_json(acl_json, output);
    sample_list_jobs(output, &before);

    /* 2. Profiling starts inside svp_acl_init; the application is an ordinary one. */
    CHECK(svp_acl_init(acl_json));
    CHECK(svp_acl_rt_set_device(0));
    sample_model_load(&model, argv[1]);
    sample_io_create(&model, &io);
    for (k = 0; k < RUNS; k++) {
        sample_io_fill(&model, &io, k);
        CHECK(svp_acl_mdl_execute(model.id, io.input, io.output));
        sample_expect(sample_io_check(&model, &io, k), "inference %zu: wrong probabilities", k + 1);
    }

    /* The session lasts as long as the library: its JOB directory exists but is not
     * finished yet. */
    sample_list_jobs(output, &after);
    jobs = sample_new_jobs(output, &before, &after, job, sizeof job);
    sample_free_list(&after);
    sample_expect(jobs == 1, "%zu new JOB directories under %s after svp_acl_init, expected 1", jobs, output);
    if (jobs == 1) {
        sample_path_join(end_info, sizeof end_info, job, "end_info.json");
        sample_expect(!sample_path_exists(end_info), "%s exists before svp_acl_finalize", end_info);
    }

    /* 3. Release everything; svp_acl_finalize ends the session. */
    sample_io_destroy(&io);
    sample_model_unload(&model);
    CHECK(svp_acl_rt_reset_device(0));
    CHECK(svp_acl_finalize());

    sample_list_jobs(output, &after);
    jobs = sample_new_jobs(output, &before, &after, job, sizeof job);
    sample_expect(jobs == 1, "%zu new JOB directories under %s, expected 1", jobs, output);
    if (jobs == 1) {
        printf("profiling data in %s (%d inferences, interval %d)\n", job, RUNS, INTERVAL);
        check_job(job, &model);
    }
    sample_free_list(&before);
    sample_free_list(&after);
    if (argc == 2 && sample_remove_tree(work) != 0) sample_expect(0, "cannot remove %s", work);
    if (g_sample_mismatches != 0) {
        fprintf(stderr, "prof_acljson_sample FAILED: %d mismatch(es)\n", g_sample_mismatches);
        return 1;
    }
    printf("prof_acljson_sample OK\n");
    return 0;
}
