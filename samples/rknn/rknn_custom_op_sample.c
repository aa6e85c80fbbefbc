/*
 * A custom operator as the vendor's custom op demo registers one (seed 000 §5.5.4,
 * docs/rknn.md "Custom operators"): the model's cstSoftmax node (an ONNX node of a custom
 * domain, which the NPU does not know) is computed by this program's CPU callbacks: init
 * allocates a scratch buffer into priv_data, compute reads the node's "axis" and "name"
 * attributes with rknn_custom_op_get_op_attr and writes the softmax, destroy frees the
 * buffer. The model (x [1, 4, 16] -> Mul by 0.5 -> cstSoftmax(axis=-1) -> y) is written by
 * tests/rknn_custom_op_model.cpp. The output is checked against a softmax computed here.
 *   rknn_custom_op_sample MODEL.rknn
 * Prints "rknn custom op sample OK" on success.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "rknn_custom_op.h"

static int custom_op_init(rknn_custom_op_context* op_ctx, rknn_custom_op_tensor* inputs, uint32_t n_inputs,
                          rknn_custom_op_tensor* outputs, uint32_t n_outputs) {
    (void)n_inputs;
    (void)outputs;
    (void)n_outputs;
    printf("custom_op_init: input %s, %u elements\n", inputs[0].attr.name, inputs[0].attr.n_elems);
    op_ctx->priv_data = malloc(inputs[0].attr.n_elems * sizeof(float));
    return op_ctx->priv_data != NULL ? 0 : -1;
}

static int compute_custom_softmax_float32(rknn_custom_op_context* op_ctx, rknn_custom_op_tensor* inputs,
                                          uint32_t n_inputs, rknn_custom_op_tensor* outputs, uint32_t n_outputs) {
    const float* in_data = (const float*)((unsigned char*)inputs[0].mem.virt_addr + inputs[0].mem.offset);
    float* out_data = (float*)((unsigned char*)outputs[0].mem.virt_addr + outputs[0].mem.offset);
    float* tmp = (float*)op_ctx->priv_data;
    rknn_custom_op_attr op_name, op_attr;
    int axis = 0, y, i, outside = 1, inside = 1;
    (void)n_inputs;
    (void)n_outputs;
    rknn_custom_op_get_op_attr(op_ctx, "name", &op_name);
    rknn_custom_op_get_op_attr(op_ctx, "axis", &op_attr);
    if (op_attr.n_elems == 1 && op_attr.dtype == RKNN_TENSOR_INT64) axis = (int)((int64_t*)op_attr.data)[0];
    while (axis < 0) axis += (int)inputs[0].attr.n_dims;
    printf("compute: op name = %s, axis = %d\n", op_name.n_elems > 0 ? (const char*)op_name.data : "?", axis);
    for (i = 0; i < axis; i++) outside *= (int)inputs[0].attr.dims[i];
    for (i = axis; i < (int)inputs[0].attr.n_dims; i++) inside *= (int)inputs[0].attr.dims[i];
    for (y = 0; y < outside; y++) {
        const float* src = in_data + y * inside;
        float* dst = out_data + y * inside;
        float max_v = -FLT_MAX, sum = 0.0f;
        for (i = 0; i < inside; i++) max_v = fmaxf(max_v, src[i]);
        for (i = 0; i < inside; i++) {
            tmp[i] = expf(src[i] - max_v);
            sum += tmp[i];
        }
        for (i = 0; i < inside; i++) dst[i] = tmp[i] / sum;
    }
    return 0;
}

static int custom_op_destroy(rknn_custom_op_context* op_ctx) {
    printf("custom_op_destroy\n");
    free(op_ctx->priv_data);
    op_ctx->priv_data = NULL;
    return 0;
}

int main(int argc, char** argv) {
    rknn_context ctx = 0;
    rknn_custom_op user_op[1];
    rknn_input_output_num io_num;
    rknn_tensor_attr in_attr, out_attr;
    rknn_input input;
    rknn_output output;
    float x[64];
    int i, r, ret, bad = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL.rknn\n", argv[0]);
        return 2;
    }
    ret = rknn_init(&ctx, argv[1], 0, 0, NULL);
    if (ret < 0) {
        fprintf(stderr, "rknn_init failed: %d\n", ret);
        return 1;
    }
    memset(user_op, 0, sizeof user_op);
    strncpy(user_op[0].op_type, "cstSoftmax", RKNN_MAX_NAME_LEN - 1);
    user_op[0].version = 1;
    user_op[0].target = RKNN_TARGET_TYPE_CPU;
    user_op[0].init = custom_op_init;
    user_op[0].compute = compute_custom_softmax_float32;
    user_op[0].destroy = custom_op_destroy;
    ret = rknn_register_custom_ops(ctx, user_op, 1);
    if (ret < 0) {
        fprintf(stderr, "rknn_register_custom_ops fail! ret = %d\n", ret);
        rknn_destroy(ctx);
        return 1;
    }
    memset(&in_attr, 0, sizeof in_attr);
    memset(&out_attr, 0, sizeof out_attr);
    if (rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io_num, sizeof io_num) != RKNN_SUCC ||
        rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &in_attr, sizeof in_attr) != RKNN_SUCC ||
        rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &out_attr, sizeof out_attr) != RKNN_SUCC || in_attr.n_elems != 64 ||
        out_attr.n_elems != 64) {
        fprintf(stderr, "unexpected model: %u elements in, %u out\n", in_attr.n_elems, out_attr.n_elems);
        rknn_destroy(ctx);
        return 1;
    }
    for (i = 0; i < 64; i++) x[i] = (float)((i * 7) % 13 - 6) * 0.5f;
    memset(&input, 0, sizeof input);
    input.index = 0;
    input.buf = x;
    input.size = sizeof x;
    input.type = RKNN_TENSOR_FLOAT32;
    input.fmt = RKNN_TENSOR_UNDEFINED;
    ret = rknn_inputs_set(ctx, 1, &input);
    if (ret == RKNN_SUCC) ret = rknn_run(ctx, NULL);
    memset(&output, 0, sizeof output);
    output.want_float = 1;
    if (ret == RKNN_SUCC) ret = rknn_outputs_get(ctx, 1, &output, NULL);
    if (ret != RKNN_SUCC) {
        fprintf(stderr, "inference failed: %d\n", ret);
        rknn_destroy(ctx);
        return 1;
    }
    /* The model: softmax over the last axis (16) of 0.5 x, rows of [1, 4, 16]. */
    for (r = 0; r < 4; r++) {
        double max_v = -1e30, sum = 0.0;
        for (i = 0; i < 16; i++) max_v = fmax(max_v, 0.5 * x[r * 16 + i]);
        for (i = 0; i < 16; i++) sum += exp(0.5 * x[r * 16 + i] - max_v);
        for (i = 0; i < 16; i++) {
            const double want = exp(0.5 * x[r * 16 + i] - max_v) / sum;
            const double got = ((const float*)output.buf)[r * 16 + i];
            if (fabs(got - want) > 1e-6) {
                if (bad < 5) fprintf(stderr, "row %d element %d: %f, expected %f\n", r, i, got, want);
                ++bad;
            }
        }
    }
    printf("row 0: %.4f %.4f %.4f %.4f ...\n", ((const float*)output.buf)[0], ((const float*)output.buf)[1],
           ((const float*)output.buf)[2], ((const float*)output.buf)[3]);
    rknn_outputs_release(ctx, 1, &output);
    rknn_destroy(ctx);
    if (bad != 0) {
        fprintf(stderr, "%d of 64 values differ\n", bad);
        return 1;
    }
    printf("rknn custom op sample OK\n");
    return 0;
}
