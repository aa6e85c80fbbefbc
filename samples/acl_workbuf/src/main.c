/*
 * acl_workbuf — guide §8.3.5 "WorkBuf memory reuse" on three LeNets compiled by svp_atc:
 * lenet.om (float), lenet_int8.om (int8) and lenet_reuse.om (float, buffer reuse type
 * INOUT_CONT). All three execute on ONE stream and share ONE work_buf (svp_acl_rt_malloc_cached,
 * the largest size and stride of the three, flushed; spec §2.2: a work_buf may be shared by
 * the models of one stream, never across streams). lenet_reuse.om's input and output are
 * carved from one contiguous block as svp_acl_mdl_get_reuse_buffer_type requires (the guide's
 * svp_npu_reuse_inout_continue); its input memory may be overwritten by the model, so every
 * image is written again before each execution. The other buffers are cached (flushed before
 * the NPU reads them, invalidated before the CPU reads the outputs).
 *
 *   acl_workbuf [MODEL_DIR] [DATASET_DIR] [COUNT]
 *
 * Checks: the reuse types reported are NONE-or-DISCONT for lenet.om and INOUT_CONT for
 * lenet_reuse.om; every image's scores with the shared work_buf equal each model's scores
 * with a work_buf of its own (lenet_reuse.om: equal to lenet.om's, the same float function).
 * Prints "acl_workbuf OK" on success.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acl_workbuf.h"
#include "sample_common.h"

static const char *g_files[ACL_WORKBUF_MODEL_NUM] = {"lenet.om", "lenet_int8.om", "lenet_reuse.om"};
static sample_fashion_set g_set;

/* Datasets of `model` with input 0 and output 0 in one contiguous block (reuse type
 * INOUT_CONT), its own task_buf and the shared work_buf.
 * The block is uncached (svp_acl_rt_malloc) although the guide's snippet uses
 * svp_acl_rt_malloc_cached: the model writes intermediates into it, and the software NPU's
 * cache emulation finds the CPU's writes by comparing the CPU view with its state at the last
 * flush, so rewriting bytes that equal the previous image's (the black borders) while the NPU
 * changed them in DDR is not seen as a write and the NPU reads its own leftovers. On a board
 * a cached block works with the flush/invalidate below; see samples/README.md. */
static int acl_io_inout_cont(const sample_model *model, void *work, size_t work_size, size_t work_stride,
                             sample_io *io)
{
    const svp_acl_mdl_desc *desc = model->desc;
    size_t m = svp_acl_mdl_get_num_inputs(desc);
    size_t in_size = svp_acl_mdl_get_input_size_by_index(desc, 0);
    size_t out_size = svp_acl_mdl_get_output_size_by_index(desc, 0);
    size_t task_size = svp_acl_mdl_get_input_size_by_index(desc, m - 2);
    unsigned char *block = NULL;
    void *task = NULL;
    SAMPLE_CHECK_EXPR_RET(m == 3 && svp_acl_mdl_get_num_outputs(desc) == 1 && in_size % 16 == 0,
                          "expected one 16-byte-aligned input and one output");
    memset(io, 0, sizeof(*io));
    io->cached = 0;
    io->input = svp_acl_mdl_create_dataset();
    io->output = svp_acl_mdl_create_dataset();
    SAMPLE_CHECK_EXPR_RET(io->input != NULL && io->output != NULL, "svp_acl_mdl_create_dataset failed");
    SAMPLE_CHECK_RET(svp_acl_rt_malloc((void **)&block, in_size + out_size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    io->mem[io->mem_count++] = block;
    memset(block, 0, in_size + out_size);
    SAMPLE_CHECK_RET(svp_acl_rt_malloc_cached(&task, task_size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    io->mem[io->mem_count++] = task;
    memset(task, 0, task_size);
    SAMPLE_CHECK_RET(svp_acl_rt_mem_flush(task, task_size));
    io->buf[0] = svp_acl_create_data_buffer(block, in_size, svp_acl_mdl_get_input_default_stride(desc, 0));
    io->buf[1] = svp_acl_create_data_buffer(task, task_size, svp_acl_mdl_get_input_default_stride(desc, m - 2));
    io->buf[2] = svp_acl_create_data_buffer(work, work_size, work_stride);
    io->buf[3] = svp_acl_create_data_buffer(block + in_size, out_size, svp_acl_mdl_get_output_default_stride(desc, 0));
    io->buf_count = 4;
    SAMPLE_CHECK_EXPR_RET(io->buf[0] && io->buf[1] && io->buf[2] && io->buf[3], "svp_acl_create_data_buffer failed");
    SAMPLE_CHECK_RET(svp_acl_mdl_add_dataset_buffer(io->input, io->buf[0]));
    SAMPLE_CHECK_RET(svp_acl_mdl_add_dataset_buffer(io->input, io->buf[1]));
    SAMPLE_CHECK_RET(svp_acl_mdl_add_dataset_buffer(io->input, io->buf[2]));
    SAMPLE_CHECK_RET(svp_acl_mdl_add_dataset_buffer(io->output, io->buf[3]));
    return SAMPLE_SUCCESS;
}

static int acl_own_workbuf_scores(const sample_model *model, float *scores)
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

static int acl_workbuf_run(const char *model_dir, size_t *differ)
{
    sample_model models[ACL_WORKBUF_MODEL_NUM];
    sample_io ios[ACL_WORKBUF_MODEL_NUM];
    sample_io_opts opts;
    svp_acl_buffer_reuse_type reuse[ACL_WORKBUF_MODEL_NUM];
    float *reference[ACL_WORKBUF_MODEL_NUM];
    float scores[SAMPLE_CLASS_NUM];
    size_t work_size = 0, work_stride = 0, own_total = 0, size, m, i;
    svp_acl_rt_stream stream = NULL;
    void *work = NULL;
    char path[1024];
    int k;
    for (m = 0; m < ACL_WORKBUF_MODEL_NUM; m++) {
        size_t last;
        snprintf(path, sizeof(path), "%s/%s", model_dir, g_files[m]);
        if (sample_model_load(path, &models[m]) != SAMPLE_SUCCESS ||
            sample_model_check_classifier(&models[m]) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        last = svp_acl_mdl_get_num_inputs(models[m].desc) - 1; /* work_buf */
        size = svp_acl_mdl_get_input_size_by_index(models[m].desc, last);
        own_total += size;
        work_size = size > work_size ? size : work_size;
        if (svp_acl_mdl_get_input_default_stride(models[m].desc, last) > work_stride) {
            work_stride = svp_acl_mdl_get_input_default_stride(models[m].desc, last);
        }
        reuse[m] = svp_acl_mdl_get_reuse_buffer_type(models[m].desc);
        SAMPLE_INFO_LOG("%s: work_buf %zu bytes, buffer reuse type %d, input 0 reuse class %d", g_files[m], size,
                        (int)reuse[m], (int)svp_acl_mdl_get_input_reuse_type(models[m].desc, 0));
        reference[m] = (float *)calloc(g_set.count * SAMPLE_CLASS_NUM, sizeof(float));
        SAMPLE_CHECK_EXPR_RET(reference[m] != NULL, "out of memory");
    }
    SAMPLE_CHECK_EXPR_RET(reuse[0] == SVP_ACL_BUFFER_REUSE_NONE || reuse[0] == SVP_ACL_BUFFER_REUSE_DISCONT,
                          "lenet.om reports reuse type %d", (int)reuse[0]);
    SAMPLE_CHECK_EXPR_RET(reuse[2] == SVP_ACL_BUFFER_REUSE_INOUT_CONT, "lenet_reuse.om reports reuse type %d, not %d",
                          (int)reuse[2], (int)SVP_ACL_BUFFER_REUSE_INOUT_CONT);
    /* the reference: each model with a work_buf of its own */
    for (m = 0; m < 2; m++) {
        if (acl_own_workbuf_scores(&models[m], reference[m]) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    memcpy(reference[2], reference[0], g_set.count * SAMPLE_CLASS_NUM * sizeof(float));

    /* one stream, one work_buf for all three models */
    SAMPLE_CHECK_RET(svp_acl_rt_create_stream(&stream));
    SAMPLE_CHECK_RET(svp_acl_rt_malloc_cached(&work, work_size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    memset(work, 0, work_size);
    SAMPLE_CHECK_RET(svp_acl_rt_mem_flush(work, work_size));
    SAMPLE_INFO_LOG("one work_buf of %zu bytes for the three models instead of %zu", work_size, own_total);
    memset(&opts, 0, sizeof(opts));
    opts.cached = 1;
    opts.shared_work_buf = work;
    opts.shared_work_size = work_size;
    opts.shared_work_stride = work_stride;
    for (m = 0; m < ACL_WORKBUF_MODEL_NUM; m++) {
        int ret = reuse[m] == SVP_ACL_BUFFER_REUSE_INOUT_CONT
                      ? acl_io_inout_cont(&models[m], work, work_size, work_stride, &ios[m])
                      : sample_io_create(&models[m], &opts, &ios[m]);
        if (ret != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    for (i = 0; i < g_set.count; i++) {
        for (m = 0; m < ACL_WORKBUF_MODEL_NUM; m++) { /* inputs written (again) before each execution */
            if (sample_io_set_image(&models[m], &ios[m], 0, g_set.pixels + i * SAMPLE_IMAGE_PIXELS) !=
                SAMPLE_SUCCESS) {
                return SAMPLE_FAILURE;
            }
            SAMPLE_CHECK_RET(svp_acl_mdl_execute_async(models[m].model_id, ios[m].input, ios[m].output, stream));
        }
        SAMPLE_CHECK_RET(svp_acl_rt_synchronize_stream(stream));
        for (m = 0; m < ACL_WORKBUF_MODEL_NUM; m++) {
            const float *want = reference[m] + i * SAMPLE_CLASS_NUM;
            if (sample_io_get_scores(&models[m], &ios[m], 0, scores) != SAMPLE_SUCCESS) {
                return SAMPLE_FAILURE;
            }
            for (k = 0; k < SAMPLE_CLASS_NUM && fabsf(scores[k] - want[k]) <= 1e-5f; k++) {
            }
            if (k < SAMPLE_CLASS_NUM && (*differ)++ < 3) {
                SAMPLE_ERROR_LOG("%s, image %zu: score %d is %g with the shared work_buf, %g with its own", g_files[m],
                                 i, k, scores[k], want[k]);
            }
        }
    }
    SAMPLE_INFO_LOG("%zu images x %d models on one stream with one work_buf: %zu result(s) differ", g_set.count,
                    ACL_WORKBUF_MODEL_NUM, *differ);
    for (m = 0; m < ACL_WORKBUF_MODEL_NUM; m++) {
        free(reference[m]);
        if (sample_io_destroy(&ios[m]) != SAMPLE_SUCCESS || sample_model_unload(&models[m]) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    SAMPLE_CHECK_RET(svp_acl_rt_free(work));
    SAMPLE_CHECK_RET(svp_acl_rt_destroy_stream(stream));
    return SAMPLE_SUCCESS;
}

int main(int argc, char *argv[])
{
    const char *model_dir = argc > 1 ? argv[1] : ACL_WORKBUF_DEFAULT_MODEL_DIR;
    const char *dataset_dir = argc > 2 ? argv[2] : SAMPLE_DEFAULT_DATASET_DIR;
    size_t count = argc > 3 ? (size_t)strtoul(argv[3], NULL, 10) : ACL_WORKBUF_DEFAULT_COUNT;
    size_t differ = 0;
    int ret;
    if (count == 0 || sample_fashion_load(dataset_dir, count, &g_set) != SAMPLE_SUCCESS) {
        return 1;
    }
    if (svp_acl_init(NULL) != SVP_ACL_SUCCESS || svp_acl_rt_set_device(0) != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("runtime resources: %s", sample_err_msg());
        return 1;
    }
    ret = acl_workbuf_run(model_dir, &differ);
    if (svp_acl_rt_reset_device(0) != SVP_ACL_SUCCESS || svp_acl_finalize() != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("releasing the runtime resources: %s", sample_err_msg());
        return 1;
    }
    sample_fashion_free(&g_set);
    if (ret != SAMPLE_SUCCESS || differ != 0) {
        return 1;
    }
    printf("acl_workbuf OK\n");
    return 0;
}
