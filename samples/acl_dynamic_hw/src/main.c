/*
 * acl_dynamic_hw — dynamic resolution gears (svp_acl_mdl_set_dynamic_hw_size): the
 * Fashion-MNIST LeNet made fully convolutional with its trained weights (make_lenet_fcn: the
 * Flatten + Gemm layers become convolutions), compiled by svp_atc with
 * --input_shape="image:1,1,-1,-1" --dynamic_image_size="64,64;28,28".
 *
 *   acl_dynamic_hw [MODEL_DIR] [DATASET_DIR] [COUNT]
 *
 * MODEL_DIR holds lenet.om (the original LeNet) and lenet_fcn.om. The datasets are allocated
 * for the largest gear; before each execution the gear is selected on the model at the index
 * of SVP_ACL_DYNAMIC_TENSOR_NAME, the description is read again and the data buffers get the
 * gear's size and stride (svp_acl_update_data_buffer).
 * - gear 28x28: output [1,10,1,1]; each image's scores equal lenet.om's (within 1e-3, same
 *   top-1);
 * - gear 64x64: a 2x2 mosaic of four test images at 32-pixel spacing on black; output
 *   [1,10,10,10], where position (y, x) is the LeNet on the 28x28 window at (4y, 4x) (conv1
 *   pads by 2, so the mosaic leaves a black ring of 2 pixels around each image, as the zero
 *   padding of a lone image): positions (0,0), (0,8), (8,0), (8,8) equal the four images'
 *   lenet.om scores;
 * - svp_acl_mdl_get_dynamic_hw lists exactly the two gears; 40x40 is refused.
 * Prints "acl_dynamic_hw OK" on success.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acl_dynamic_hw.h"
#include "sample_common.h"

static sample_fashion_set g_set;

/* Selects gear h×w, refreshes the description and sets the buffers' size and stride. */
static int acl_select_gear(sample_model *model, sample_io *io, size_t dyn_index, uint64_t h, uint64_t w)
{
    svp_acl_data_buffer *in = svp_acl_mdl_get_dataset_buffer(io->input, 0);
    svp_acl_data_buffer *out = svp_acl_mdl_get_dataset_buffer(io->output, 0);
    svp_acl_mdl_io_dims dims;
    SAMPLE_CHECK_EXPR_RET(in != NULL && out != NULL, "the datasets lack input 0 or output 0");
    SAMPLE_CHECK_RET(svp_acl_mdl_set_dynamic_hw_size(model->model_id, io->input, dyn_index, h, w));
    SAMPLE_CHECK_RET(svp_acl_mdl_get_desc(model->desc, model->model_id));
    SAMPLE_CHECK_RET(svp_acl_mdl_get_input_dims(model->desc, 0, &dims));
    SAMPLE_CHECK_EXPR_RET(dims.dim_count == 4 && (uint64_t)dims.dims[2] == h && (uint64_t)dims.dims[3] == w,
                          "after selecting %llux%llu the input is not [1,1,%llu,%llu]", (unsigned long long)h,
                          (unsigned long long)w, (unsigned long long)h, (unsigned long long)w);
    SAMPLE_CHECK_RET(svp_acl_update_data_buffer(in, svp_acl_get_data_buffer_addr(in),
                                                svp_acl_mdl_get_input_size_by_index(model->desc, 0),
                                                svp_acl_mdl_get_input_default_stride(model->desc, 0)));
    SAMPLE_CHECK_RET(svp_acl_update_data_buffer(out, svp_acl_get_data_buffer_addr(out),
                                                svp_acl_mdl_get_output_size_by_index(model->desc, 0),
                                                svp_acl_mdl_get_output_default_stride(model->desc, 0)));
    return SAMPLE_SUCCESS;
}

/* Writes image `image` at (top, left) of the gear's input. */
static void acl_put_image(sample_io *io, size_t image, size_t top, size_t left)
{
    svp_acl_data_buffer *in = svp_acl_mdl_get_dataset_buffer(io->input, 0);
    unsigned char *base = (unsigned char *)svp_acl_get_data_buffer_addr(in);
    size_t stride = svp_acl_get_data_buffer_stride(in), r;
    for (r = 0; r < SAMPLE_IMAGE_H; r++) {
        memcpy(base + (top + r) * stride + left * sizeof(float), g_set.pixels + image * SAMPLE_IMAGE_PIXELS +
               r * SAMPLE_IMAGE_W, SAMPLE_IMAGE_W * sizeof(float));
    }
}

/* Compares the scores at output position (y, x) with `want`; returns 1 when they agree. */
static int acl_scores_at(const sample_model *model, sample_io *io, size_t y, size_t x, const float *want,
                         int *top1)
{
    svp_acl_data_buffer *out = svp_acl_mdl_get_dataset_buffer(io->output, 0);
    const unsigned char *base = (const unsigned char *)svp_acl_get_data_buffer_addr(out);
    size_t stride = svp_acl_get_data_buffer_stride(out);
    svp_acl_mdl_io_dims dims;
    float scores[SAMPLE_CLASS_NUM];
    int c, ok = 1;
    if (svp_acl_mdl_get_output_dims(model->desc, 0, &dims) != SVP_ACL_SUCCESS || dims.dim_count != 4) {
        return 0;
    }
    for (c = 0; c < SAMPLE_CLASS_NUM; c++) { /* element (c, y, x): row c × OH + y */
        memcpy(&scores[c], base + ((size_t)c * (size_t)dims.dims[2] + y) * stride + x * sizeof(float), sizeof(float));
        ok = ok && fabsf(scores[c] - want[c]) <= ACL_DYNAMIC_HW_TOLERANCE;
    }
    *top1 = sample_argmax(scores, SAMPLE_CLASS_NUM);
    return ok && *top1 == sample_argmax(want, SAMPLE_CLASS_NUM);
}

static int acl_dynamic_hw_run(const char *model_dir, size_t *differ, size_t *correct, size_t *checked)
{
    char path[1024];
    sample_model lenet, fcn;
    sample_io io;
    svp_acl_mdl_hw hw;
    size_t dyn_index = 0, i, q, y, x;
    float *reference = (float *)calloc(g_set.count * SAMPLE_CLASS_NUM, sizeof(float));
    svp_acl_error ret;
    int top1;
    SAMPLE_CHECK_EXPR_RET(reference != NULL, "out of memory");
    /* the reference: the original LeNet */
    snprintf(path, sizeof(path), "%s/lenet.om", model_dir);
    if (sample_model_load(path, &lenet) != SAMPLE_SUCCESS || sample_model_check_classifier(&lenet) != SAMPLE_SUCCESS ||
        sample_io_create(&lenet, NULL, &io) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    for (i = 0; i < g_set.count; i++) {
        if (sample_io_set_image(&lenet, &io, 0, g_set.pixels + i * SAMPLE_IMAGE_PIXELS) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        SAMPLE_CHECK_RET(svp_acl_mdl_execute(lenet.model_id, io.input, io.output));
        if (sample_io_get_scores(&lenet, &io, 0, reference + i * SAMPLE_CLASS_NUM) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    if (sample_io_destroy(&io) != SAMPLE_SUCCESS || sample_model_unload(&lenet) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }

    snprintf(path, sizeof(path), "%s/lenet_fcn.om", model_dir);
    if (sample_model_load(path, &fcn) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_CHECK_RET(svp_acl_mdl_get_input_index_by_name(fcn.desc, SVP_ACL_DYNAMIC_TENSOR_NAME, &dyn_index));
    SAMPLE_CHECK_RET(svp_acl_mdl_get_dynamic_hw(fcn.desc, dyn_index, &hw));
    SAMPLE_CHECK_EXPR_RET(hw.hw_count == 2 && hw.hw[0][0] == ACL_DYNAMIC_HW_BIG && hw.hw[0][1] == ACL_DYNAMIC_HW_BIG &&
                              hw.hw[1][0] == ACL_DYNAMIC_HW_SMALL && hw.hw[1][1] == ACL_DYNAMIC_HW_SMALL,
                          "lenet_fcn.om lists %zu gears, not 64x64 and 28x28", hw.hw_count);
    SAMPLE_INFO_LOG("lenet_fcn.om: gears %llux%llu and %llux%llu", (unsigned long long)hw.hw[0][0],
                    (unsigned long long)hw.hw[0][1], (unsigned long long)hw.hw[1][0], (unsigned long long)hw.hw[1][1]);
    /* before a gear is selected the sizes are the largest gear's */
    if (sample_io_create(&fcn, NULL, &io) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    ret = svp_acl_mdl_set_dynamic_hw_size(fcn.model_id, io.input, dyn_index, ACL_DYNAMIC_HW_OTHER, ACL_DYNAMIC_HW_OTHER);
    SAMPLE_CHECK_EXPR_RET(ret != SVP_ACL_SUCCESS, "%dx%d is not a gear, yet it was accepted", ACL_DYNAMIC_HW_OTHER,
                          ACL_DYNAMIC_HW_OTHER);
    SAMPLE_INFO_LOG("%dx%d (not a gear) refused as expected: %d", ACL_DYNAMIC_HW_OTHER, ACL_DYNAMIC_HW_OTHER, (int)ret);

    /* gear 28x28: one image, the LeNet's answer at the single output position */
    if (acl_select_gear(&fcn, &io, dyn_index, ACL_DYNAMIC_HW_SMALL, ACL_DYNAMIC_HW_SMALL) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    for (i = 0; i < g_set.count; i++) {
        acl_put_image(&io, i, 0, 0);
        SAMPLE_CHECK_RET(svp_acl_mdl_execute(fcn.model_id, io.input, io.output));
        if (!acl_scores_at(&fcn, &io, 0, 0, reference + i * SAMPLE_CLASS_NUM, &top1) && (*differ)++ < 3) {
            SAMPLE_ERROR_LOG("gear 28x28, image %zu: the scores differ from lenet.om's", i);
        }
        *correct += top1 == g_set.labels[i];
        (*checked)++;
    }
    SAMPLE_INFO_LOG("gear 28x28: %zu images, %zu differ from lenet.om", g_set.count, *differ);

    /* gear 64x64: 2x2 mosaics; image q of a mosaic at (32·(q/2), 32·(q%2)), black around */
    if (acl_select_gear(&fcn, &io, dyn_index, ACL_DYNAMIC_HW_BIG, ACL_DYNAMIC_HW_BIG) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    memset(svp_acl_get_data_buffer_addr(svp_acl_mdl_get_dataset_buffer(io.input, 0)), 0,
           svp_acl_get_data_buffer_size(svp_acl_mdl_get_dataset_buffer(io.input, 0)));
    for (i = 0; i + 4 <= g_set.count; i += 4) {
        for (q = 0; q < 4; q++) {
            acl_put_image(&io, i + q, ACL_DYNAMIC_HW_SPACING * (q / 2), ACL_DYNAMIC_HW_SPACING * (q % 2));
        }
        SAMPLE_CHECK_RET(svp_acl_mdl_execute(fcn.model_id, io.input, io.output));
        for (q = 0; q < 4; q++) {
            y = ACL_DYNAMIC_HW_SPACING / ACL_DYNAMIC_HW_NET_STRIDE * (q / 2);
            x = ACL_DYNAMIC_HW_SPACING / ACL_DYNAMIC_HW_NET_STRIDE * (q % 2);
            if (!acl_scores_at(&fcn, &io, y, x, reference + (i + q) * SAMPLE_CLASS_NUM, &top1) && (*differ)++ < 3) {
                SAMPLE_ERROR_LOG("gear 64x64, image %zu at output (%zu, %zu): the scores differ from lenet.om's",
                                 i + q, y, x);
            }
            *correct += top1 == g_set.labels[i + q];
            (*checked)++;
        }
    }
    SAMPLE_INFO_LOG("gear 64x64: %zu mosaics of 4 images, %zu differ from lenet.om in all", g_set.count / 4, *differ);
    free(reference);
    if (sample_io_destroy(&io) != SAMPLE_SUCCESS || sample_model_unload(&fcn) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    return SAMPLE_SUCCESS;
}

int main(int argc, char *argv[])
{
    const char *model_dir = argc > 1 ? argv[1] : ACL_DYNAMIC_HW_DEFAULT_MODEL_DIR;
    const char *dataset_dir = argc > 2 ? argv[2] : SAMPLE_DEFAULT_DATASET_DIR;
    size_t count = argc > 3 ? (size_t)strtoul(argv[3], NULL, 10) : ACL_DYNAMIC_HW_DEFAULT_COUNT;
    size_t differ = 0, correct = 0, checked = 0;
    int ret;
    if (count < 4 || sample_fashion_load(dataset_dir, count, &g_set) != SAMPLE_SUCCESS) {
        SAMPLE_ERROR_LOG("COUNT must be at least 4 and the dataset readable");
        return 1;
    }
    if (svp_acl_init(NULL) != SVP_ACL_SUCCESS || svp_acl_rt_set_device(0) != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("runtime resources: %s", sample_err_msg());
        return 1;
    }
    ret = acl_dynamic_hw_run(model_dir, &differ, &correct, &checked);
    if (svp_acl_rt_reset_device(0) != SVP_ACL_SUCCESS || svp_acl_finalize() != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("releasing the runtime resources: %s", sample_err_msg());
        return 1;
    }
    sample_fashion_free(&g_set);
    if (ret != SAMPLE_SUCCESS || differ != 0) {
        return 1;
    }
    SAMPLE_INFO_LOG("top-1 %.2f %% over both gears", 100.0 * (double)correct / (double)checked);
    printf("acl_dynamic_hw OK\n");
    return 0;
}
