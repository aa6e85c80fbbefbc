/* Dynamic shapes (seed 000 §5.4, the vendor's rknn_dynamic_shape_input_demo): a model
 * converted with configs.dynamic_input lists its shape sets (RKNN_QUERY_INPUT_DYNAMIC_RANGE);
 * the application selects one with rknn_set_input_shapes, reads the current attributes
 * (RKNN_QUERY_CURRENT_INPUT_ATTR / CURRENT_OUTPUT_ATTR) and runs, through the general API
 * (§5.4.4.1) and the zero-copy API (§5.4.4.2: memory of the largest set, bound again after
 * every switch with the current attributes, NHWC and then the native layout of
 * CURRENT_NATIVE_INPUT_ATTR). Check: every image of every set has the scores it has alone in
 * the batch-1 set, in every API (float: within 1e-5; int8: exactly).
 *   rknn_dynamic_shape IMAGES.u8 COUNT MODEL.rknn */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lenet/lenet_common.h"
#include "rknn_api.h"

#define MAX_SETS 8
/* Float scores: one gear's program on every item, so equal but for summation order; int8
 * scores (a quantized model, one set of quantization parameters for every set): exact. */
#define FLOAT_TOLERANCE 1e-5f

static void dump_input_dynamic_range(const rknn_input_range* range) {
    uint32_t s, d;
    printf("  index=%u, name=%s, shape_number=%u, fmt=%s, range=[", range->index, range->name, range->shape_number,
           get_format_string(range->fmt));
    for (s = 0; s < range->shape_number; ++s) {
        printf("%s[", s == 0 ? "" : ", ");
        for (d = 0; d < range->n_dims; ++d) printf("%s%u", d == 0 ? "" : ", ", range->dyn_range[s][d]);
        printf("]");
    }
    printf("]\n");
}

/* rknn_set_input_shapes with set s of the range, then the current attributes. */
static int select_shape(rknn_context ctx, const rknn_input_range* range, uint32_t s, rknn_tensor_attr* input_attr,
                        rknn_tensor_attr* cur_input, rknn_tensor_attr* cur_output) {
    uint32_t j;
    int ret;
    for (j = 0; j < input_attr->n_dims; ++j) input_attr->dims[j] = range->dyn_range[s][j];
    input_attr->fmt = RKNN_TENSOR_NHWC;
    ret = rknn_set_input_shapes(ctx, 1, input_attr);
    if (ret < 0) {
        printf("rknn_set_input_shapes error! ret=%d\n", ret);
        return -1;
    }
    memset(cur_input, 0, sizeof *cur_input);
    memset(cur_output, 0, sizeof *cur_output);
    if (rknn_query(ctx, RKNN_QUERY_CURRENT_INPUT_ATTR, cur_input, sizeof *cur_input) != RKNN_SUCC ||
        rknn_query(ctx, RKNN_QUERY_CURRENT_OUTPUT_ATTR, cur_output, sizeof *cur_output) != RKNN_SUCC) {
        printf("rknn_query(CURRENT_INPUT_ATTR / CURRENT_OUTPUT_ATTR) fail!\n");
        return -1;
    }
    printf("current input tensors:\n");
    dump_tensor_attr(cur_input);
    printf("current output tensors:\n");
    dump_tensor_attr(cur_output);
    if (cur_input->dims[0] != range->dyn_range[s][0] || cur_output->dims[0] != cur_input->dims[0] ||
        cur_output->n_elems != cur_input->dims[0] * LENET_CLASSES) {
        printf("the current attributes do not have the batch of the set selected (%u)\n", range->dyn_range[s][0]);
        return -1;
    }
    return 0;
}

/* The guide's notes to §5.4.4.2: the input may be bound as NHWC with CURRENT_INPUT_ATTR or
 * in the NPU's layout with CURRENT_NATIVE_INPUT_ATTR (rows w_stride apart), and memory of the
 * largest set (NATIVE_INPUT_ATTR before any switch) holds every set. */
static int query_current_native(rknn_context ctx, const rknn_tensor_attr* max_native, rknn_tensor_attr* native) {
    memset(native, 0, sizeof *native);
    if (rknn_query(ctx, RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR, native, sizeof *native) != RKNN_SUCC) {
        printf("rknn_query(CURRENT_NATIVE_INPUT_ATTR) fail!\n");
        return -1;
    }
    printf("current native input tensors:\n");
    dump_tensor_attr(native);
    if (native->size_with_stride > max_native->size_with_stride || native->w_stride < native->dims[2]) {
        printf("the current set's native input (%u bytes) exceeds the largest set's (%u)\n", native->size_with_stride,
               max_native->size_with_stride);
        return -1;
    }
    return 0;
}

/* §5.4.4.2: the batch's rows copied into the memory as `bind` lays them out (NHWC, w_stride
 * pixels a row), both memories bound, run, the float scores read from the output memory. */
static int run_zero_copy(rknn_context ctx, rknn_tensor_mem* input_mem, rknn_tensor_mem* output_mem,
                         rknn_tensor_attr* bind, rknn_tensor_attr* cur_output, const unsigned char* images,
                         float* scores) {
    uint32_t batch = bind->dims[0], height = bind->dims[1], width = bind->dims[2];
    uint32_t channel = bind->dims[3], stride = bind->w_stride ? bind->w_stride : width;
    const unsigned char* src = images;
    unsigned char* dst = (unsigned char*)input_mem->virt_addr;
    uint32_t b, h;
    int ret;
    if (bind->fmt != RKNN_TENSOR_NHWC) {
        printf("the demo copies NHWC rows; the input's layout is %s\n", get_format_string(bind->fmt));
        return -1;
    }
    if ((size_t)batch * height * stride * channel > input_mem->size) {
        printf("input memory of %u bytes is too small for the set\n", input_mem->size);
        return -1;
    }
    memset(input_mem->virt_addr, 0, input_mem->size);
    for (b = 0; b < batch; ++b) {
        for (h = 0; h < height; ++h) {
            memcpy(dst, src, (size_t)width * channel);
            src += (size_t)width * channel;
            dst += (size_t)stride * channel;
        }
    }
    bind->type = RKNN_TENSOR_UINT8;
    ret = rknn_set_io_mem(ctx, input_mem, bind);
    if (ret < 0) {
        printf("rknn_set_io_mem(input) fail! ret=%d\n", ret);
        return -1;
    }
    cur_output->type = RKNN_TENSOR_FLOAT32;
    cur_output->fmt = RKNN_TENSOR_NCHW;
    ret = rknn_set_io_mem(ctx, output_mem, cur_output);
    if (ret < 0) {
        printf("rknn_set_io_mem(output) fail! ret=%d\n", ret);
        return -1;
    }
    ret = rknn_run(ctx, NULL);
    if (ret < 0) {
        printf("rknn_run fail! ret=%d\n", ret);
        return -1;
    }
    memcpy(scores, output_mem->virt_addr, (size_t)cur_output->n_elems * sizeof(float));
    return 0;
}

/* Image k of set s against image k alone (the batch-1 set). */
static int check_set(const char* api, uint32_t batch, const float* scores, const float* single, float tolerance) {
    float worst = max_rel_diff(scores, single, (size_t)batch * LENET_CLASSES);
    printf("%s, batch %u: largest difference from each image alone %g\n", api, batch, worst);
    if (worst > tolerance) {
        printf("%s, batch %u: the images' scores differ from their batch-1 scores (> %g)\n", api, batch, tolerance);
        return -1;
    }
    return 0;
}

int main(int argc, char** argv) {
    rknn_context ctx = 0;
    rknn_tensor_attr input_attr, output_attr, cur_input, cur_output, native_attr, cur_native;
    rknn_input_range range;
    rknn_tensor_mem *input_mem = NULL, *output_mem = NULL;
    unsigned char* images = NULL;
    float *single = NULL, *scores = NULL;
    float tolerance;
    int count, ret = 1, k;
    uint32_t s, one = MAX_SETS, max_batch = 0;
    if (argc != 4) {
        printf("usage: %s IMAGES.u8 COUNT MODEL.rknn\n", argv[0]);
        return 2;
    }
    count = atoi(argv[2]);
    if ((images = load_images(argv[1], count)) == NULL || init_lenet(argv[3], 0, &ctx) != 0) goto out;

    memset(&input_attr, 0, sizeof input_attr);
    memset(&output_attr, 0, sizeof output_attr);
    if (rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &input_attr, sizeof input_attr) != RKNN_SUCC ||
        rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &output_attr, sizeof output_attr) != RKNN_SUCC) {
        printf("rknn_query(INPUT_ATTR / OUTPUT_ATTR) fail!\n");
        goto out;
    }
    printf("input tensors (the largest set):\n");
    dump_tensor_attr(&input_attr);
    printf("output tensors:\n");
    dump_tensor_attr(&output_attr);
    tolerance = output_attr.qnt_type == RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC ? 0.0f : FLOAT_TOLERANCE;

    memset(&range, 0, sizeof range);
    range.index = 0;
    if (rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &range, sizeof range) != RKNN_SUCC) {
        printf("rknn_query(INPUT_DYNAMIC_RANGE) fail: is the model converted with dynamic_input?\n");
        goto out;
    }
    printf("dynamic inputs shape range:\n");
    dump_input_dynamic_range(&range);
    if (range.shape_number < 2 || range.shape_number > MAX_SETS || range.n_dims != 4) {
        printf("the demo needs 2..%d sets of 4-D shapes\n", MAX_SETS);
        goto out;
    }
    for (s = 0; s < range.shape_number; ++s) {
        if (range.dyn_range[s][0] == 1) one = s;
        if (range.dyn_range[s][0] > max_batch) max_batch = range.dyn_range[s][0];
    }
    if (one == MAX_SETS || (int)max_batch > count || input_attr.dims[0] != max_batch) {
        printf("the demo needs a batch-1 set, at most %d images per set and INPUT_ATTR at the largest batch\n", count);
        goto out;
    }
    single = (float*)malloc((size_t)count * LENET_CLASSES * sizeof(float));
    scores = (float*)malloc((size_t)max_batch * LENET_CLASSES * sizeof(float));
    if (single == NULL || scores == NULL) goto out;

    /* The reference: each image alone in the batch-1 set. */
    if (select_shape(ctx, &range, one, &input_attr, &cur_input, &cur_output) != 0) goto out;
    for (k = 0; k < count; ++k) {
        if (run_normal(ctx, images + (size_t)k * LENET_PIXELS, 1, single + (size_t)k * LENET_CLASSES) != 0) goto out;
    }
    /* A check that could not fail would prove nothing: the images must score differently. */
    if (max_rel_diff(single, single + LENET_CLASSES, LENET_CLASSES) < 1e-3f) {
        printf("images 0 and 1 have the same scores: the model's output does not depend on its input\n");
        goto out;
    }

    /* §5.4.4.1: every set through the general API. */
    for (s = 0; s < range.shape_number; ++s) {
        if (select_shape(ctx, &range, s, &input_attr, &cur_input, &cur_output) != 0 ||
            run_normal(ctx, images, (int)cur_input.dims[0], scores) != 0 ||
            check_set("general API", cur_input.dims[0], scores, single, tolerance) != 0) {
            goto out;
        }
    }

    /* §5.4.4.2: memory for the largest set (the attributes before any switch describe it;
     * the native one has the wider rows), bound with each set's current attributes: NHWC as
     * the guide's code does, then the native layout. */
    memset(&native_attr, 0, sizeof native_attr);
    if (rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &native_attr, sizeof native_attr) != RKNN_SUCC) {
        printf("rknn_query(NATIVE_INPUT_ATTR) fail!\n");
        goto out;
    }
    input_mem = rknn_create_mem(ctx, native_attr.size_with_stride);
    output_mem = rknn_create_mem(ctx, output_attr.n_elems * sizeof(float));
    if (input_mem == NULL || output_mem == NULL) {
        printf("rknn_create_mem fail!\n");
        goto out;
    }
    for (s = range.shape_number; s-- > 0;) {
        if (select_shape(ctx, &range, s, &input_attr, &cur_input, &cur_output) != 0 ||
            run_zero_copy(ctx, input_mem, output_mem, &cur_input, &cur_output, images, scores) != 0 ||
            check_set("zero-copy API, NHWC", cur_input.dims[0], scores, single, tolerance) != 0 ||
            query_current_native(ctx, &native_attr, &cur_native) != 0 ||
            run_zero_copy(ctx, input_mem, output_mem, &cur_native, &cur_output, images, scores) != 0 ||
            check_set("zero-copy API, native", cur_native.dims[0], scores, single, tolerance) != 0) {
            goto out;
        }
    }
    printf("rknn dynamic shape sample OK\n");
    ret = 0;
out:
    if (input_mem != NULL) rknn_destroy_mem(ctx, input_mem);
    if (output_mem != NULL) rknn_destroy_mem(ctx, output_mem);
    if (ctx != 0) rknn_destroy(ctx);
    free(single);
    free(scores);
    free(images);
    return ret;
}
