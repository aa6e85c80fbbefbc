#include "rknn_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dump_tensor_attr(const char* what, const rknn_tensor_attr* attr) {
    printf("%s: index=%u name=%s n_dims=%u dims=[%u, %u, %u, %u, %u] n_elems=%u size=%u fmt=%s type=%s qnt_type=%s "
           "zp=%d scale=%f w_stride=%u size_with_stride=%u\n",
           what, attr->index, attr->name, attr->n_dims, attr->dims[0], attr->dims[1], attr->dims[2], attr->dims[3],
           attr->dims[4], attr->n_elems, attr->size, get_format_string(attr->fmt), get_type_string(attr->type),
           get_qnt_type_string(attr->qnt_type), attr->zp, attr->scale, attr->w_stride, attr->size_with_stride);
}

static int query(rknn_context ctx, rknn_query_cmd cmd, rknn_tensor_attr* attr, const char* what) {
    int ret;
    memset(attr, 0, sizeof *attr);
    attr->index = 0;
    ret = rknn_query(ctx, cmd, attr, sizeof *attr);
    if (ret != RKNN_SUCC) {
        printf("rknn_query(%s) fail! ret=%d\n", what, ret);
        return -1;
    }
    dump_tensor_attr(what, attr);
    return 0;
}

int init_model(const char* model_path, rknn_app_context_t* app) {
    int ret;
    memset(app, 0, sizeof *app);
    /* Size 0: `model` is a file path (the model zoo's RV1106 demos). */
    ret = rknn_init(&app->ctx, (void*)model_path, 0, 0, NULL);
    if (ret != RKNN_SUCC) {
        printf("rknn_init fail! ret=%d\n", ret);
        return -1;
    }
    ret = rknn_query(app->ctx, RKNN_QUERY_IN_OUT_NUM, &app->io_num, sizeof app->io_num);
    if (ret != RKNN_SUCC || app->io_num.n_input != 1 || app->io_num.n_output != 1) {
        printf("model input num: %u, output num: %u (ret=%d): the demo runs one input and one output\n",
               app->io_num.n_input, app->io_num.n_output, ret);
        return -1;
    }
    if (query(app->ctx, RKNN_QUERY_INPUT_ATTR, &app->input_attr, "input") != 0 ||
        query(app->ctx, RKNN_QUERY_OUTPUT_ATTR, &app->output_attr, "output") != 0) {
        return -1;
    }
    if (app->input_attr.fmt != RKNN_TENSOR_NHWC || (app->input_attr.dims[3] != 3 && app->input_attr.dims[3] != 1)) {
        printf("model input is not NHWC with 1 or 3 channels\n");
        return -1;
    }
    app->model_height = (int)app->input_attr.dims[1];
    app->model_width = (int)app->input_attr.dims[2];
    app->model_channel = (int)app->input_attr.dims[3];
    app->is_quant = app->output_attr.qnt_type == RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC &&
                    app->output_attr.type == RKNN_TENSOR_INT8;
    if (!app->is_quant && app->output_attr.type != RKNN_TENSOR_FLOAT32) {
        printf("output type %s is neither INT8 (affine) nor FLOAT32\n", get_type_string(app->output_attr.type));
        return -1;
    }
#ifdef ZERO_COPY
    if (query(app->ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &app->native_input_attr, "native input") != 0 ||
        query(app->ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, &app->native_output_attr, "native output") != 0) {
        return -1;
    }
    /* The input is bound as UINT8 pixels in the native NHWC layout, rows w_stride wide. */
    app->native_input_attr.type = RKNN_TENSOR_UINT8;
    app->native_input_attr.fmt = RKNN_TENSOR_NHWC;
    app->input_mem = rknn_create_mem(app->ctx, app->native_input_attr.size_with_stride);
    app->output_mem = rknn_create_mem(app->ctx, app->native_output_attr.size_with_stride);
    if (app->input_mem == NULL || app->output_mem == NULL) {
        printf("rknn_create_mem fail!\n");
        return -1;
    }
    ret = rknn_set_io_mem(app->ctx, app->input_mem, &app->native_input_attr);
    if (ret == RKNN_SUCC) ret = rknn_set_io_mem(app->ctx, app->output_mem, &app->native_output_attr);
    if (ret != RKNN_SUCC) {
        printf("rknn_set_io_mem fail! ret=%d\n", ret);
        return -1;
    }
#endif
    return 0;
}

static float dequantize(int8_t q, int32_t zp, float scale) { return ((float)q - (float)zp) * scale; }

#ifdef ZERO_COPY
/* The native output back into the model's order: NC1HWC2 [N, C1, H, W, C2] to NCHW, or the
 * buffer as it is for other layouts. */
static void read_native_output(const rknn_app_context_t* app, float* out) {
    const rknn_tensor_attr* native = &app->native_output_attr;
    const rknn_tensor_attr* normal = &app->output_attr;
    const unsigned char* bytes = (const unsigned char*)app->output_mem->virt_addr;
    uint32_t i;
    for (i = 0; i < normal->n_elems; ++i) {
        size_t at = i;
        if (native->fmt == RKNN_TENSOR_NC1HWC2 && normal->n_dims == 4) {
            uint32_t c_total = normal->dims[1], h_total = normal->dims[2], w_total = normal->dims[3];
            uint32_t c2 = native->dims[4], c1_total = native->dims[1];
            uint32_t w = i % w_total, h = (i / w_total) % h_total, c = (i / w_total / h_total) % c_total;
            uint32_t n = i / w_total / h_total / c_total;
            at = ((((size_t)n * c1_total + c / c2) * h_total + h) * w_total + w) * c2 + c % c2;
        }
        out[i] = app->is_quant ? dequantize(((const int8_t*)bytes)[at], native->zp, native->scale)
                               : ((const float*)bytes)[at];
    }
}
#endif

int inference(rknn_app_context_t* app, const unsigned char* rgb, float* out) {
    int ret;
#ifdef ZERO_COPY
    size_t row = (size_t)app->model_width * app->model_channel;
    int y;
    for (y = 0; y < app->model_height; ++y) {
        memcpy((unsigned char*)app->input_mem->virt_addr + (size_t)y * app->native_input_attr.w_stride * app->model_channel,
               rgb + (size_t)y * row, row);
    }
    ret = rknn_run(app->ctx, NULL);
    if (ret != RKNN_SUCC) {
        printf("rknn_run fail! ret=%d\n", ret);
        return -1;
    }
    read_native_output(app, out);
#else
    rknn_input input;
    rknn_output output;
    uint32_t i;
    memset(&input, 0, sizeof input);
    input.index = 0;
    input.type = RKNN_TENSOR_UINT8;
    input.fmt = RKNN_TENSOR_NHWC;
    input.size = (uint32_t)app->model_width * (uint32_t)app->model_height * (uint32_t)app->model_channel;
    input.buf = (void*)rgb;
    ret = rknn_inputs_set(app->ctx, 1, &input);
    if (ret == RKNN_SUCC) ret = rknn_run(app->ctx, NULL);
    if (ret != RKNN_SUCC) {
        printf("rknn_inputs_set / rknn_run fail! ret=%d\n", ret);
        return -1;
    }
    memset(&output, 0, sizeof output);
    output.index = 0;
    output.want_float = (uint8_t)!app->is_quant;
    ret = rknn_outputs_get(app->ctx, 1, &output, NULL);
    if (ret != RKNN_SUCC) {
        printf("rknn_outputs_get fail! ret=%d\n", ret);
        return -1;
    }
    for (i = 0; i < app->output_attr.n_elems; ++i) {
        out[i] = app->is_quant ? dequantize(((const int8_t*)output.buf)[i], app->output_attr.zp, app->output_attr.scale)
                               : ((const float*)output.buf)[i];
    }
    rknn_outputs_release(app->ctx, 1, &output);
#endif
    return 0;
}

void release_model(rknn_app_context_t* app) {
#ifdef ZERO_COPY
    if (app->input_mem != NULL) rknn_destroy_mem(app->ctx, app->input_mem);
    if (app->output_mem != NULL) rknn_destroy_mem(app->ctx, app->output_mem);
#endif
    if (app->ctx != 0) rknn_destroy(app->ctx);
    app->ctx = 0;
}
