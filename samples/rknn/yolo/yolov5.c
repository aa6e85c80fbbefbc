/*
 * A YOLO-style detector with librknnrt, as the model zoo's yolov5 demo (its main.cc and
 * yolov5.cc in C99, the public rknn_api.h only): the model initialised from its file, the
 * inputs and outputs queried, the image letterboxed into the input (grey 114 around it),
 * one run, and the zoo's post-processing (postprocess.c). Built twice: the normal API
 * (rknn_inputs_set, rknn_run, rknn_outputs_get with want_float 0 for int8 models) and, with
 * ZERO_COPY, the zero-copy API (native attributes, rknn_create_mem, rknn_set_io_mem, input
 * rows w_stride pixels apart, NC1HWC2 outputs converted to NCHW by the application).
 *   rknn_yolo MODEL.rknn IMAGE.png [DUMP_DIR]
 * DUMP_DIR receives input.npy (the UINT8 NHWC pixels set) and output0..2.npy (the outputs
 * as float32 NCHW, int8 ones dequantized) for the onnxruntime check (check_yolo.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ppocr/image_utils.h"
#include "postprocess.h"
#include "rknn/rknn_api.h"

typedef struct {
    rknn_context ctx;
    rknn_input_output_num io_num;
    rknn_tensor_attr input_attr;
    rknn_tensor_attr output_attrs[YOLO_LEVELS];
#ifdef ZERO_COPY
    rknn_tensor_attr native_input_attr;
    rknn_tensor_attr native_output_attrs[YOLO_LEVELS];
    rknn_tensor_mem* input_mem;
    rknn_tensor_mem* output_mems[YOLO_LEVELS];
#endif
    int is_quant;
    int model_width, model_height, model_channel;
} rknn_app_context_t;

static void dump_tensor_attr(const char* what, const rknn_tensor_attr* attr) {
    printf("%s: index=%u name=%s n_dims=%u dims=[%u, %u, %u, %u, %u] n_elems=%u size=%u fmt=%s type=%s qnt_type=%s "
           "zp=%d scale=%f w_stride=%u size_with_stride=%u\n",
           what, attr->index, attr->name, attr->n_dims, attr->dims[0], attr->dims[1], attr->dims[2], attr->dims[3],
           attr->dims[4], attr->n_elems, attr->size, get_format_string(attr->fmt), get_type_string(attr->type),
           get_qnt_type_string(attr->qnt_type), attr->zp, attr->scale, attr->w_stride, attr->size_with_stride);
}

static int query(rknn_context ctx, rknn_query_cmd cmd, uint32_t index, rknn_tensor_attr* attr, const char* what) {
    int ret;
    memset(attr, 0, sizeof *attr);
    attr->index = index;
    ret = rknn_query(ctx, cmd, attr, sizeof *attr);
    if (ret != RKNN_SUCC) {
        printf("rknn_query(%s %u) fail! ret=%d\n", what, index, ret);
        return -1;
    }
    dump_tensor_attr(what, attr);
    return 0;
}

static int init_yolov5_model(const char* model_path, rknn_app_context_t* app) {
    uint32_t i;
    int ret;
    memset(app, 0, sizeof *app);
    ret = rknn_init(&app->ctx, (void*)model_path, 0, 0, NULL); /* size 0: a file path */
    if (ret != RKNN_SUCC) {
        printf("rknn_init fail! ret=%d\n", ret);
        return -1;
    }
    ret = rknn_query(app->ctx, RKNN_QUERY_IN_OUT_NUM, &app->io_num, sizeof app->io_num);
    if (ret != RKNN_SUCC || app->io_num.n_input != 1 || app->io_num.n_output != YOLO_LEVELS) {
        printf("model input num: %u, output num: %u (ret=%d): the demo runs one input and %d outputs\n",
               app->io_num.n_input, app->io_num.n_output, ret, YOLO_LEVELS);
        return -1;
    }
    if (query(app->ctx, RKNN_QUERY_INPUT_ATTR, 0, &app->input_attr, "input") != 0) return -1;
    for (i = 0; i < YOLO_LEVELS; ++i) {
        if (query(app->ctx, RKNN_QUERY_OUTPUT_ATTR, i, &app->output_attrs[i], "output") != 0) return -1;
        if (app->output_attrs[i].n_dims != 4 || app->output_attrs[i].dims[1] != 3 * (5 + OBJ_CLASS_NUM)) {
            printf("output %u is not [1, %d, h, w]\n", i, 3 * (5 + OBJ_CLASS_NUM));
            return -1;
        }
    }
    if (app->input_attr.fmt != RKNN_TENSOR_NHWC || app->input_attr.dims[3] != 3) {
        printf("model input is not NHWC with 3 channels\n");
        return -1;
    }
    app->model_height = (int)app->input_attr.dims[1];
    app->model_width = (int)app->input_attr.dims[2];
    app->model_channel = 3;
    app->is_quant = app->output_attrs[0].qnt_type == RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC &&
                    app->output_attrs[0].type == RKNN_TENSOR_INT8;
    if (!app->is_quant && app->output_attrs[0].type != RKNN_TENSOR_FLOAT32) {
        printf("output type %s is neither INT8 (affine) nor FLOAT32\n", get_type_string(app->output_attrs[0].type));
        return -1;
    }
#ifdef ZERO_COPY
    if (query(app->ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, 0, &app->native_input_attr, "native input") != 0) return -1;
    app->native_input_attr.type = RKNN_TENSOR_UINT8; /* bound as UINT8 pixels, NHWC rows w_stride wide */
    app->native_input_attr.fmt = RKNN_TENSOR_NHWC;
    app->input_mem = rknn_create_mem(app->ctx, app->native_input_attr.size_with_stride);
    if (app->input_mem == NULL) {
        printf("rknn_create_mem fail!\n");
        return -1;
    }
    ret = rknn_set_io_mem(app->ctx, app->input_mem, &app->native_input_attr);
    for (i = 0; i < YOLO_LEVELS && ret == RKNN_SUCC; ++i) {
        rknn_tensor_attr* native = &app->native_output_attrs[i];
        if (query(app->ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, i, native, "native output") != 0) return -1;
        if (native->type != (app->is_quant ? RKNN_TENSOR_INT8 : RKNN_TENSOR_FLOAT32)) {
            printf("native output %u type %s: the demo reads INT8 or FLOAT32\n", i, get_type_string(native->type));
            return -1;
        }
        app->output_mems[i] = rknn_create_mem(app->ctx, native->size_with_stride);
        if (app->output_mems[i] == NULL) {
            printf("rknn_create_mem fail!\n");
            return -1;
        }
        ret = rknn_set_io_mem(app->ctx, app->output_mems[i], native);
    }
    if (ret != RKNN_SUCC) {
        printf("rknn_set_io_mem fail! ret=%d\n", ret);
        return -1;
    }
#endif
    return 0;
}

static void release_yolov5_model(rknn_app_context_t* app) {
#ifdef ZERO_COPY
    int i;
    if (app->input_mem != NULL) rknn_destroy_mem(app->ctx, app->input_mem);
    for (i = 0; i < YOLO_LEVELS; ++i) {
        if (app->output_mems[i] != NULL) rknn_destroy_mem(app->ctx, app->output_mems[i]);
    }
#endif
    if (app->ctx != 0) rknn_destroy(app->ctx);
    app->ctx = 0;
}

#ifdef ZERO_COPY
/* A native output [N, C1, H, W, C2] (NC1HWC2) into NCHW `dst` (elements of `elem` bytes);
 * other native layouts are already NCHW. */
static void nc1hwc2_to_nchw(const rknn_tensor_attr* native, const rknn_tensor_attr* normal, const void* src,
                            void* dst, size_t elem) {
    uint32_t c_total = normal->dims[1], h_total = normal->dims[2], w_total = normal->dims[3], i;
    if (native->fmt != RKNN_TENSOR_NC1HWC2) {
        memcpy(dst, src, elem * normal->n_elems);
        return;
    }
    for (i = 0; i < normal->n_elems; ++i) {
        uint32_t w = i % w_total, h = (i / w_total) % h_total, c = (i / w_total / h_total) % c_total;
        uint32_t n = i / w_total / h_total / c_total, c2 = native->dims[4];
        size_t at = ((((size_t)n * native->dims[1] + c / c2) * h_total + h) * w_total + w) * c2 + c % c2;
        memcpy((unsigned char*)dst + i * elem, (const unsigned char*)src + at * elem, elem);
    }
}
#endif

/* Runs the letterboxed `input` (model_height x model_width x 3); outputs[i] receive NCHW
 * int8 (is_quant) or float data; each outputs[i] holds output_attrs[i].n_elems elements. */
static int run(rknn_app_context_t* app, const unsigned char* input, void* outputs[YOLO_LEVELS]) {
    const size_t elem = app->is_quant ? 1 : sizeof(float);
    int ret, i;
#ifdef ZERO_COPY
    const size_t row = (size_t)app->model_width * 3;
    int y;
    for (y = 0; y < app->model_height; ++y) {
        memcpy((unsigned char*)app->input_mem->virt_addr + (size_t)y * app->native_input_attr.w_stride * 3,
               input + (size_t)y * row, row);
    }
    ret = rknn_run(app->ctx, NULL);
    if (ret != RKNN_SUCC) {
        printf("rknn_run fail! ret=%d\n", ret);
        return -1;
    }
    for (i = 0; i < YOLO_LEVELS; ++i) {
        nc1hwc2_to_nchw(&app->native_output_attrs[i], &app->output_attrs[i], app->output_mems[i]->virt_addr,
                        outputs[i], elem);
    }
#else
    rknn_input in;
    rknn_output out[YOLO_LEVELS];
    memset(&in, 0, sizeof in);
    in.index = 0;
    in.type = RKNN_TENSOR_UINT8;
    in.fmt = RKNN_TENSOR_NHWC;
    in.size = (uint32_t)(app->model_width * app->model_height * 3);
    in.buf = (void*)input;
    ret = rknn_inputs_set(app->ctx, 1, &in);
    if (ret == RKNN_SUCC) ret = rknn_run(app->ctx, NULL);
    if (ret != RKNN_SUCC) {
        printf("rknn_inputs_set / rknn_run fail! ret=%d\n", ret);
        return -1;
    }
    memset(out, 0, sizeof out);
    for (i = 0; i < YOLO_LEVELS; ++i) {
        out[i].index = (uint32_t)i;
        out[i].want_float = (uint8_t)!app->is_quant; /* int8 stays int8: the post-processing dequantizes */
    }
    ret = rknn_outputs_get(app->ctx, YOLO_LEVELS, out, NULL);
    if (ret != RKNN_SUCC) {
        printf("rknn_outputs_get fail! ret=%d\n", ret);
        return -1;
    }
    for (i = 0; i < YOLO_LEVELS; ++i) memcpy(outputs[i], out[i].buf, elem * app->output_attrs[i].n_elems);
    rknn_outputs_release(app->ctx, YOLO_LEVELS, out);
#endif
    return 0;
}

static int dump(const char* dir, const rknn_app_context_t* app, const unsigned char* input, void* outputs[YOLO_LEVELS]) {
    char path[4096];
    int i, ret = 0;
    snprintf(path, sizeof path, "%s/input.npy", dir);
    ret |= write_npy(path, "|u1", app->input_attr.dims, 4, input, app->input_attr.n_elems);
    for (i = 0; i < YOLO_LEVELS; ++i) {
        const rknn_tensor_attr* a = &app->output_attrs[i];
        float* f = (float*)malloc(sizeof(float) * a->n_elems);
        uint32_t k;
        if (f == NULL) return -1;
        for (k = 0; k < a->n_elems; ++k) {
            f[k] = app->is_quant ? ((float)((const int8_t*)outputs[i])[k] - (float)a->zp) * a->scale
                                 : ((const float*)outputs[i])[k];
        }
        snprintf(path, sizeof path, "%s/output%d.npy", dir, i);
        ret |= write_npy(path, "<f4", a->dims, 4, f, sizeof(float) * a->n_elems);
        free(f);
    }
    return ret;
}

int main(int argc, char** argv) {
    rknn_app_context_t app;
    image_buffer_t img;
    unsigned char* input = NULL;
    void* outputs[YOLO_LEVELS] = {NULL, NULL, NULL};
    yolo_output_t levels[YOLO_LEVELS];
    object_detect_result_list od;
    letterbox_t lb;
    int i, ret = 1, ok = 1;

    if (argc != 3 && argc != 4) {
        printf("usage: %s MODEL.rknn IMAGE.png [DUMP_DIR]\n", argv[0]);
        return 2;
    }
    if (read_png_rgb(argv[2], &img) != 0) return 2;
    if (init_yolov5_model(argv[1], &app) != 0) goto out;
    /* Letterbox: scaled to fit, centred, grey 114 around it (the zoo's convert_image_with_letterbox). */
    lb.scale = (float)app.model_width / (float)img.width;
    if ((float)app.model_height / (float)img.height < lb.scale) lb.scale = (float)app.model_height / (float)img.height;
    {
        int rw = (int)((float)img.width * lb.scale + 0.5f), rh = (int)((float)img.height * lb.scale + 0.5f);
        size_t bytes = (size_t)app.model_width * (size_t)app.model_height * 3;
        lb.x_pad = (app.model_width - rw) / 2;
        lb.y_pad = (app.model_height - rh) / 2;
        input = (unsigned char*)malloc(bytes);
        if (input == NULL) goto out;
        memset(input, 114, bytes);
        resize_rgb(&img, 0, 0, img.width, img.height, input + ((size_t)lb.y_pad * app.model_width + lb.x_pad) * 3, rw,
                   rh, app.model_width);
    }
    printf("image %dx%d letterboxed by %.6f (pad %d, %d) into %dx%d\n", img.width, img.height, lb.scale, lb.x_pad,
           lb.y_pad, app.model_width, app.model_height);
    for (i = 0; i < YOLO_LEVELS; ++i) {
        outputs[i] = malloc((app.is_quant ? 1 : sizeof(float)) * app.output_attrs[i].n_elems);
        ok = ok && outputs[i] != NULL;
    }
    if (!ok || run(&app, input, outputs) != 0) goto out;
    for (i = 0; i < YOLO_LEVELS; ++i) {
        levels[i].data = outputs[i];
        levels[i].grid_h = (int)app.output_attrs[i].dims[2];
        levels[i].grid_w = (int)app.output_attrs[i].dims[3];
        levels[i].is_quant = app.is_quant;
        levels[i].zp = app.output_attrs[i].zp;
        levels[i].scale = app.output_attrs[i].scale;
    }
    if (post_process(levels, app.model_width, app.model_height, &lb, img.width, img.height, &od) != 0) goto out;
    for (i = 0; i < od.count; ++i) {
        const object_detect_result* r = &od.results[i];
        printf("det %d: class %d score %.6f box %d %d %d %d\n", i, r->cls_id, r->prop, r->box.left, r->box.top,
               r->box.right, r->box.bottom);
    }
    printf("detections: %d\n", od.count);
    ret = argc == 4 ? dump(argv[3], &app, input, outputs) != 0 : 0;
out:
    for (i = 0; i < YOLO_LEVELS; ++i) free(outputs[i]);
    free(input);
    release_yolov5_model(&app);
    free_image(&img);
    return ret;
}
