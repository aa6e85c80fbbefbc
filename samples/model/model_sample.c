/*
 * model_sample: runs an offline model the way the vendor's NPU samples do, through the
 * public C API only.
 *
 *   model_sample <dir>      (dir holds classifier.om, .input.bin, .expected.bin written by
 *                            make_sample_model)
 *
 * 1. reads the .om file into NPU memory and loads it (svp_acl_mdl_load_from_mem);
 * 2. prints the model description and builds the datasets exactly as the vendor sample does
 *    (spec §2.2): data inputs at the default stride, task_buf appended when M-2 buffers are
 *    present, work_buf when M-1, then the outputs;
 * 3. copies each image in row by row at the stride, executes synchronously and checks the
 *    probabilities against the expected file;
 * 4. executes the images asynchronously on two streams (one dataset set each), with an
 *    AI-CPU worker thread serving the model's AI-CPU layer and a report thread running the
 *    callbacks that check each result.
 * Exits non-zero on any API error or wrong result; prints "model demo OK" at the end.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/svp_acl.h"
#include "acl/svp_acl_ext.h"
#include "acl/svp_acl_mdl.h"

#define CHECK(call)                                                                              \
    do {                                                                                         \
        svp_acl_error rc_ = (call);                                                              \
        if (rc_ != SVP_ACL_SUCCESS) {                                                            \
            fprintf(stderr, "FAILED %s -> %d: %s\n", #call, rc_, svp_acl_get_recent_err_msg()); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

#define MAX_BUFFERS 16
#define CLASSES 10

typedef struct {
    svp_acl_mdl_dataset *input;
    svp_acl_mdl_dataset *output;
    void *memory[MAX_BUFFERS];
    svp_acl_data_buffer *buffers[MAX_BUFFERS];
    size_t count;
} io_set_t;

static uint32_t g_model_id;
static svp_acl_mdl_desc *g_desc;
static float *g_images, *g_expected;
static size_t g_num_images;
static int g_exit;
static int g_checked, g_wrong; /* report thread only, read after it is joined */

static void *read_file(const char *path, size_t *size, int npu_memory) {
    FILE *f = fopen(path, "rb");
    void *data = NULL;
    long n;
    if (f == NULL) {
        fprintf(stderr, "cannot open %s (run make_sample_model first)\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (npu_memory) {
        CHECK(svp_acl_rt_malloc(&data, (size_t)n, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    } else {
        data = malloc((size_t)n);
    }
    if (data == NULL || fread(data, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

static void add_buffer(io_set_t *io, svp_acl_mdl_dataset *dataset, size_t size, size_t stride) {
    void *mem = NULL;
    CHECK(svp_acl_rt_malloc(&mem, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    memset(mem, 0, size);
    io->memory[io->count] = mem;
    io->buffers[io->count] = svp_acl_create_data_buffer(mem, size, stride);
    if (io->buffers[io->count] == NULL) {
        fprintf(stderr, "svp_acl_create_data_buffer failed\n");
        exit(1);
    }
    CHECK(svp_acl_mdl_add_dataset_buffer(dataset, io->buffers[io->count]));
    io->count++;
}

/* The vendor sample's dataset procedure (spec §2.2), with max batch 1. */
static void create_io(io_set_t *io) {
    size_t m = svp_acl_mdl_get_num_inputs(g_desc);
    size_t i;
    memset(io, 0, sizeof *io);
    io->input = svp_acl_mdl_create_dataset();
    io->output = svp_acl_mdl_create_dataset();
    for (i = 0; i < m - 2; i++) {
        add_buffer(io, io->input, svp_acl_mdl_get_input_size_by_index(g_desc, i),
                   svp_acl_mdl_get_input_default_stride(g_desc, i));
    }
    if (svp_acl_mdl_get_dataset_num_buffers(io->input) == m - 2) {
        add_buffer(io, io->input, svp_acl_mdl_get_input_size_by_index(g_desc, m - 2),
                   svp_acl_mdl_get_input_default_stride(g_desc, m - 2));
    }
    if (svp_acl_mdl_get_dataset_num_buffers(io->input) == m - 1) {
        add_buffer(io, io->input, svp_acl_mdl_get_input_size_by_index(g_desc, m - 1),
                   svp_acl_mdl_get_input_default_stride(g_desc, m - 1));
    }
    for (i = 0; i < svp_acl_mdl_get_num_outputs(g_desc); i++) {
        add_buffer(io, io->output, svp_acl_mdl_get_output_size_by_index(g_desc, i),
                   svp_acl_mdl_get_output_default_stride(g_desc, i));
    }
}

static void destroy_io(io_set_t *io) {
    size_t i;
    for (i = 0; i < io->count; i++) {
        CHECK(svp_acl_rt_free(io->memory[i]));
        CHECK(svp_acl_destroy_data_buffer(io->buffers[i]));
    }
    CHECK(svp_acl_mdl_destroy_dataset(io->input));
    CHECK(svp_acl_mdl_destroy_dataset(io->output));
}

/* Writes image `k` into input 0 row by row at the buffer's stride (vendor file reading). */
static void fill_input(io_set_t *io, size_t k) {
    svp_acl_mdl_io_dims dims;
    svp_acl_data_buffer *buf = svp_acl_mdl_get_dataset_buffer(io->input, 0);
    size_t stride = svp_acl_get_data_buffer_stride(buf), rows = 1, row_bytes, r, d;
    uint8_t *dst = (uint8_t *)svp_acl_get_data_buffer_addr(buf);
    const uint8_t *src;
    CHECK(svp_acl_mdl_get_input_dims(g_desc, 0, &dims));
    for (d = 0; d + 1 < dims.dim_count; d++) rows *= (size_t)dims.dims[d];
    row_bytes = (size_t)dims.dims[dims.dim_count - 1] * sizeof(float);
    src = (const uint8_t *)(g_images + k * rows * row_bytes / sizeof(float));
    for (r = 0; r < rows; r++) memcpy(dst + r * stride, src + r * row_bytes, row_bytes);
}

/* Compares output 0 with the expected probabilities of image `k`; returns the top class
 * or -1 on a mismatch. */
static int check_output(io_set_t *io, size_t k) {
    const float *got = (const float *)svp_acl_get_data_buffer_addr(svp_acl_mdl_get_dataset_buffer(io->output, 0));
    const float *want = g_expected + k * CLASSES;
    int c, best = 0;
    for (c = 0; c < CLASSES; c++) {
        if (fabsf(got[c] - want[c]) > 1e-4f) return -1;
        if (got[c] > got[best]) best = c;
    }
    return best;
}

typedef struct {
    io_set_t *io;
    size_t image;
} job_t;

static void on_done(void *data) {
    job_t *job = (job_t *)data;
    g_checked++;
    if (check_output(job->io, job->image) < 0) g_wrong++;
}

static void *report_thread(void *arg) {
    (void)arg;
    while (!__atomic_load_n(&g_exit, __ATOMIC_ACQUIRE)) svp_acl_rt_process_report(20);
    return NULL;
}

static void *aicpu_thread(void *ctx) {
    svp_acl_rt_set_current_context((svp_acl_rt_context)ctx);
    while (!__atomic_load_n(&g_exit, __ATOMIC_ACQUIRE)) svp_acl_ext_process_aicpu_task(20);
    return NULL;
}

int main(int argc, char **argv) {
    char path[1024];
    size_t model_size, bytes, k, i;
    void *model;
    io_set_t sync_io, async_io[2];
    svp_acl_rt_stream streams[2];
    svp_acl_rt_context ctx;
    pthread_t reporter, worker;
    job_t jobs[64];
    uint32_t aicpu_tasks = 0;
    svp_acl_mdl_io_dims dims;

    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s <dir with classifier.om> [acl.json]\n", argv[0]);
        return 2;
    }
    /* An acl.json (e.g. with a "profiler" section) is passed to svp_acl_init as is. */
    CHECK(svp_acl_init(argc == 3 ? argv[2] : NULL));
    CHECK(svp_acl_rt_set_device(0));
    CHECK(svp_acl_rt_get_current_context(&ctx));

    snprintf(path, sizeof path, "%s/classifier.om", argv[1]);
    model = read_file(path, &model_size, 1);
    CHECK(svp_acl_mdl_load_from_mem(model, model_size, &g_model_id));
    snprintf(path, sizeof path, "%s/classifier.input.bin", argv[1]);
    g_images = (float *)read_file(path, &bytes, 0);
    snprintf(path, sizeof path, "%s/classifier.expected.bin", argv[1]);
    g_expected = (float *)read_file(path, &g_num_images, 0);
    g_num_images /= CLASSES * sizeof(float);
    if (g_num_images > 32) g_num_images = 32;

    g_desc = svp_acl_mdl_create_desc();
    CHECK(svp_acl_mdl_get_desc(g_desc, g_model_id));
    CHECK(svp_acl_ext_get_mdl_aicpu_task_num(g_model_id, &aicpu_tasks));
    printf("model %u: %zu inputs (incl. task_buf, work_buf), %zu outputs, %u AI-CPU layer(s)\n", g_model_id,
           svp_acl_mdl_get_num_inputs(g_desc), svp_acl_mdl_get_num_outputs(g_desc), aicpu_tasks);
    for (i = 0; i < svp_acl_mdl_get_num_inputs(g_desc); i++) {
        CHECK(svp_acl_mdl_get_input_dims(g_desc, i, &dims));
        printf("  input %zu %-10s rank %zu  stride %5zu  size %7zu\n", i, svp_acl_mdl_get_input_name_by_index(g_desc, i),
               dims.dim_count, svp_acl_mdl_get_input_default_stride(g_desc, i),
               svp_acl_mdl_get_input_size_by_index(g_desc, i));
    }

    /* Synchronous inference, image by image. */
    create_io(&sync_io);
    printf("sync:  ");
    for (k = 0; k < g_num_images; k++) {
        int top;
        fill_input(&sync_io, k);
        CHECK(svp_acl_mdl_execute(g_model_id, sync_io.input, sync_io.output));
        top = check_output(&sync_io, k);
        if (top < 0) {
            fprintf(stderr, "\nimage %zu: probabilities differ from the expected ones\n", k);
            return 1;
        }
        printf("img%zu->class %d  ", k, top);
    }
    printf("\n");

    /* Asynchronous inference on two streams, one dataset set per stream; each execution is
     * followed by a callback that checks its result. */
    CHECK(svp_acl_rt_create_stream(&streams[0]));
    CHECK(svp_acl_rt_create_stream(&streams[1]));
    pthread_create(&reporter, NULL, report_thread, NULL);
    pthread_create(&worker, NULL, aicpu_thread, ctx);
    for (i = 0; i < 2; i++) {
        create_io(&async_io[i]);
        CHECK(svp_acl_rt_subscribe_report((uint64_t)reporter, streams[i]));
    }
    for (k = 0; k < g_num_images; k++) {
        io_set_t *io = &async_io[k % 2];
        svp_acl_rt_stream s = streams[k % 2];
        /* One dataset set per stream: wait for its previous use before refilling it. */
        CHECK(svp_acl_rt_synchronize_stream(s));
        fill_input(io, k);
        jobs[k].io = io;
        jobs[k].image = k;
        CHECK(svp_acl_mdl_execute_async(g_model_id, io->input, io->output, s));
        CHECK(svp_acl_rt_launch_callback(on_done, &jobs[k], SVP_ACL_CALLBACK_BLOCK, s));
    }
    CHECK(svp_acl_rt_synchronize_stream(streams[0]));
    CHECK(svp_acl_rt_synchronize_stream(streams[1]));
    __atomic_store_n(&g_exit, 1, __ATOMIC_RELEASE);
    pthread_join(reporter, NULL);
    pthread_join(worker, NULL);
    printf("async: %d executions on 2 streams checked in callbacks, %d wrong\n", g_checked, g_wrong);

    for (i = 0; i < 2; i++) {
        CHECK(svp_acl_rt_unsubscribe_report((uint64_t)reporter, streams[i]));
        destroy_io(&async_io[i]);
        CHECK(svp_acl_rt_destroy_stream(streams[i]));
    }
    destroy_io(&sync_io);
    CHECK(svp_acl_mdl_destroy_desc(g_desc));
    CHECK(svp_acl_mdl_unload(g_model_id));
    CHECK(svp_acl_rt_free(model));
    free(g_images);
    free(g_expected);
    CHECK(svp_acl_rt_reset_device(0));
    CHECK(svp_acl_finalize());
    if (g_wrong != 0 || g_checked != (int)g_num_images) return 1;
    printf("model demo OK\n");
    return 0;
}
