/*
 * prof_pipe_sample: profiling through a subscription pipe, the way example 1 of the
 * vendor guide's profiling section (seed 003 §8.7) does it, with the public C API only.
 *
 *   prof_pipe_sample <dir>   (dir holds classifier.om, its test data and
 *                             classifier.layers.txt, written by make_sample_model)
 *
 * 1. initialises, loads the classifier and builds its datasets (vendor procedure);
 * 2. creates a pipe and subscribes the model with
 *    svp_acl_prof_create_subscribe_config(1, 0, &sub_fd[1]) + svp_acl_prof_model_subscribe;
 * 3. starts a reader thread running the guide's loop: read up to N = 10 operator records
 *    at a time and decode each with svp_acl_prof_get_op_num / model_id / op_type(_len) /
 *    op_name(_len) / op_start / op_end / op_duration;
 * 4. executes the model synchronously and then asynchronously on a stream (an AI-CPU
 *    thread serving the model's AI-CPU softmax), checking every result;
 * 5. unsubscribes, closes the write end, joins the reader, closes the read end and
 *    destroys the configuration, in the guide's order.
 * Then it checks what the reader received against the model's layer list — one record per
 * layer per execution, in execution order, for this model, with sane times — and prints
 * the average time of each operator. Exits non-zero on any API error or mismatch; prints
 * "prof_pipe_sample OK" at the end.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "acl/svp_acl_ext.h"
#include "prof_sample_util.h"

#define SYNC_RUNS 3
#define ASYNC_RUNS 3
#define RUNS (SYNC_RUNS + ASYNC_RUNS)
#define MAX_REPORTED_ERRORS 20

/* What the reader thread found. Only the reader writes it; main reads it after the join,
 * which orders the two. */
typedef struct {
    unsigned long long records;
    unsigned long long count[SAMPLE_MAX_LAYERS];
    unsigned long long total_us[SAMPLE_MAX_LAYERS];
    unsigned long long reads;       /* read(2) calls that returned data */
    unsigned long long split_reads; /* of those, reads that ended inside a record */
    unsigned long long prev_end_us;
    int errors;
} reader_state_t;

static reader_state_t g_reader;
/* Set before the reader starts and never written afterwards. */
static const sample_model_t *g_model;

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void reader_error(const char *fmt, ...) {
    va_list ap;
    if (++g_reader.errors > MAX_REPORTED_ERRORS) return;
    fprintf(stderr, "reader: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* 4.1 of the guide: decode the records in `data`. The executions of this sample never
 * overlap (synchronous ones, then one stream), so record k must be layer k mod L of the
 * layer list, and each operator starts after the previous one ended. */
static void get_model_info(void *data, size_t len) {
    uint32_t op_number = 0;
    uint32_t i;
    svp_acl_error rc = svp_acl_prof_get_op_num(data, len, &op_number);
    if (rc != SVP_ACL_SUCCESS) {
        reader_error("svp_acl_prof_get_op_num(%zu bytes) -> %d: %s", len, rc, svp_acl_get_recent_err_msg());
        return;
    }
    for (i = 0; i < op_number; i++) {
        const unsigned long long rec = g_reader.records++; /* number in the whole stream */
        const size_t layer = (size_t)(rec % g_model->num_layers);
        const sample_layer_t *want = &g_model->layers[layer];
        size_t model_id = svp_acl_prof_get_model_id(data, len, i);
        size_t op_type_len = 0, op_name_len = 0;
        uint64_t op_start, op_end, op_duration;
        if (model_id != g_model->id) reader_error("record %llu: model id %zu, expected %u", rec, model_id, g_model->id);

        rc = svp_acl_prof_get_op_type_len(data, len, i, &op_type_len);
        if (rc != SVP_ACL_SUCCESS || op_type_len < 2 || op_type_len > SVP_ACL_PROF_MAX_OP_TYPE_LEN) {
            reader_error("record %llu: svp_acl_prof_get_op_type_len -> %d, length %zu", rec, rc, op_type_len);
            continue;
        }
        rc = svp_acl_prof_get_op_name_len(data, len, i, &op_name_len);
        if (rc != SVP_ACL_SUCCESS || op_name_len < 2 || op_name_len > SVP_ACL_PROF_MAX_OP_NAME_LEN) {
            reader_error("record %llu: svp_acl_prof_get_op_name_len -> %d, length %zu", rec, rc, op_name_len);
            continue;
        }
        {
            /* Exactly the reported sizes, as the guide allocates them: a length that forgot
             * the terminator would make the copy below fail. */
            char op_type[op_type_len];
            char op_name[op_name_len];
            rc = svp_acl_prof_get_op_type(data, len, i, op_type, op_type_len);
            if (rc != SVP_ACL_SUCCESS) {
                reader_error("record %llu: svp_acl_prof_get_op_type -> %d: %s", rec, rc, svp_acl_get_recent_err_msg());
                continue;
            }
            rc = svp_acl_prof_get_op_name(data, len, i, op_name, op_name_len);
            if (rc != SVP_ACL_SUCCESS) {
                reader_error("record %llu: svp_acl_prof_get_op_name -> %d: %s", rec, rc, svp_acl_get_recent_err_msg());
                continue;
            }
            if (strlen(op_type) + 1 != op_type_len || strlen(op_name) + 1 != op_name_len) {
                reader_error("record %llu: lengths %zu/%zu do not match \"%s\"/\"%s\"", rec, op_type_len, op_name_len,
                             op_type, op_name);
            }
            if (strcmp(op_name, want->name) != 0 || strcmp(op_type, want->type) != 0) {
                reader_error("record %llu: %s (%s), expected layer %zu %s (%s)", rec, op_name,
                             op_type, layer, want->name, want->type);
                continue;
            }
        }
        /* Microseconds, truncated from nanoseconds: the duration is computed before the
         * truncation, so it is end - start or one less. */
        op_start = svp_acl_prof_get_op_start(data, len, i);
        op_end = svp_acl_prof_get_op_end(data, len, i);
        op_duration = svp_acl_prof_get_op_duration(data, len, i);
        if (op_start == 0 || op_start > op_end || op_duration > op_end - op_start ||
            op_duration + 1 < op_end - op_start) {
            reader_error("%s: start %llu end %llu duration %llu us are inconsistent", want->name,
                         (unsigned long long)op_start, (unsigned long long)op_end, (unsigned long long)op_duration);
            continue;
        }
        if (op_start < g_reader.prev_end_us) {
            reader_error("%s starts at %llu us, before the previous operator ended (%llu us)", want->name,
                         (unsigned long long)op_start, g_reader.prev_end_us);
        }
        g_reader.prev_end_us = op_end;
        g_reader.count[layer]++;
        g_reader.total_us[layer] += op_duration;
    }
}

/* 4.2 of the guide: the reader thread. The guide's loop stores read()'s result in a
 * uint32_t and so never sees -1; here an error ends the loop, an interrupted read is
 * retried, and the bytes of a record split across two reads are kept for the next round
 * (the library writes whole records atomically, so this should never be needed; the
 * sample counts it to show that). */
static void *prof_data_read(void *fd) {
    const size_t N = 10;
    size_t buffer_size = 0, read_buf_len, held = 0;
    char *read_buf;
    ssize_t data_len;
    svp_acl_error rc = svp_acl_prof_get_op_desc_size(&buffer_size);
    if (rc != SVP_ACL_SUCCESS || buffer_size == 0) {
        reader_error("svp_acl_prof_get_op_desc_size -> %d: %s", rc, svp_acl_get_recent_err_msg());
        return NULL;
    }
    read_buf_len = buffer_size * N;
    read_buf = (char *)malloc(read_buf_len);
    if (read_buf == NULL) {
        reader_error("out of memory");
        return NULL;
    }
    for (;;) {
        size_t whole;
        data_len = read(*(int *)fd, read_buf + held, read_buf_len - held);
        if (data_len < 0 && errno == EINTR) continue;
        if (data_len <= 0) break;
        g_reader.reads++;
        held += (size_t)data_len;
        whole = held - held % buffer_size;
        if (whole != held) g_reader.split_reads++;
        if (whole > 0) {
            get_model_info(read_buf, whole);
            memmove(read_buf, read_buf + whole, held - whole);
            held -= whole;
        }
    }
    if (data_len < 0) reader_error("read: %s", strerror(errno));
    if (held != 0) reader_error("the pipe ended %zu bytes into a record", held);
    free(read_buf);
    return NULL;
}

static void print_table(const sample_model_t *m) {
    size_t i;
    double per_run = 0.0;
    printf("%-14s %-18s %-6s %6s %10s\n", "operator", "type", "unit", "count", "avg us");
    for (i = 0; i < m->num_layers; i++) {
        double avg = g_reader.count[i] == 0 ? 0.0 : (double)g_reader.total_us[i] / (double)g_reader.count[i];
        per_run += avg;
        printf("%-14s %-18s %-6s %6llu %10.1f\n", m->layers[i].name, m->layers[i].type,
               m->layers[i].aicpu ? "aicpu" : "npu", g_reader.count[i], avg);
    }
    printf("%-40s %17.1f\n", "sum of the averages (one execution)", per_run);
}

int main(int argc, char **argv) {
    sample_model_t model;
    sample_io_t sync_io, async_io[ASYNC_RUNS];
    svp_acl_rt_context ctx;
    svp_acl_rt_stream stream;
    sample_aicpu_worker_t worker;
    svp_acl_prof_subscribe_config *config;
    int sub_fd[2];
    pthread_t sub_tid;
    size_t k, i;

    if (argc != 2) {
        fprintf(stderr, "usage: %s <dir with classifier.om>\n", argv[0]);
        return 2;
    }
    /* 1. Resources, model and datasets. */
    CHECK(svp_acl_init(NULL));
    CHECK(svp_acl_rt_set_device(0));
    CHECK(svp_acl_rt_get_current_context(&ctx));
    CHECK(svp_acl_rt_create_stream(&stream));
    sample_model_load(&model, argv[1]);
    g_model = &model;
    sample_io_create(&model, &sync_io);
    for (k = 0; k < ASYNC_RUNS; k++) sample_io_create(&model, &async_io[k]);

    /* 2. The pipe: the library writes records to sub_fd[1], the reader reads sub_fd[0]. */
    if (pipe(sub_fd) != 0) {
        perror("pipe");
        return 1;
    }
    /* 3. Subscribe with operator timing on (1); aicore_metrics must be 0 in subscribe mode. */
    config = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &sub_fd[1]);
    if (config == NULL) {
        fprintf(stderr, "FAILED svp_acl_prof_create_subscribe_config: %s\n", svp_acl_get_recent_err_msg());
        return 1;
    }
    CHECK(svp_acl_prof_model_subscribe(model.id, config));

    /* 5. The reader thread. */
    if (pthread_create(&sub_tid, NULL, prof_data_read, &sub_fd[0]) != 0) {
        fprintf(stderr, "cannot start the reader thread\n");
        return 1;
    }

    /* 6. Execute: synchronously (the AI-CPU layer runs inside the call) ... */
    for (k = 0; k < SYNC_RUNS; k++) {
        sample_io_fill(&model, &sync_io, k);
        CHECK(svp_acl_mdl_execute(model.id, sync_io.input, sync_io.output));
        sample_expect(sample_io_check(&model, &sync_io, k), "synchronous execution %zu: wrong probabilities", k);
    }
    /* ... and asynchronously on one stream, one dataset set per execution in flight; the
     * AI-CPU layer needs an application thread. */
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

    /* 8. Unsubscribe before unloading (unloading would end the subscription by itself),
     * then the guide's order: the library has let go of the pipe once unsubscribe
     * returns, so closing our write end makes the reader see end-of-file. */
    CHECK(svp_acl_prof_model_unsubscribe(model.id));
    if (close(sub_fd[1]) != 0) perror("close(sub_fd[1])");
    if (pthread_join(sub_tid, NULL) != 0) {
        fprintf(stderr, "cannot join the reader thread\n");
        return 1;
    }
    if (close(sub_fd[0]) != 0) perror("close(sub_fd[0])");
    CHECK(svp_acl_prof_destroy_subscribe_config(config));

    /* What the reader received. */
    printf("%llu operator records in %llu reads for %d executions of %zu layers\n", g_reader.records,
           g_reader.reads, RUNS, model.num_layers);
    print_table(&model);
    sample_expect(g_reader.errors == 0, "the reader found %d bad record(s)", g_reader.errors);
    sample_expect(g_reader.records == (unsigned long long)RUNS * model.num_layers,
                  "%llu records received, expected %d executions x %zu layers", g_reader.records, RUNS,
                  model.num_layers);
    for (i = 0; i < model.num_layers; i++) {
        sample_expect(g_reader.count[i] == RUNS, "operator %s: %llu records, expected %d", model.layers[i].name,
                      g_reader.count[i], RUNS);
    }
    sample_expect(g_reader.split_reads == 0, "%llu reads ended inside a record (records are written whole)",
                  g_reader.split_reads);

    /* 9. Release everything. */
    sample_io_destroy(&sync_io);
    for (k = 0; k < ASYNC_RUNS; k++) sample_io_destroy(&async_io[k]);
    CHECK(svp_acl_rt_destroy_stream(stream));
    sample_model_unload(&model);
    CHECK(svp_acl_rt_reset_device(0));
    CHECK(svp_acl_finalize());
    if (g_sample_mismatches != 0) {
        fprintf(stderr, "prof_pipe_sample FAILED: %d mismatch(es)\n", g_sample_mismatches);
        return 1;
    }
    printf("prof_pipe_sample OK\n");
    return 0;
}
