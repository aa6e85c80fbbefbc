/*
 * The RKNN part of the PP-OCR and classifier demos, as the model zoo writes it (its rknn_app_context_t,
 * init_model / inference / release_model): only the public rknn_api.h. Built twice: the
 * normal API (rknn_inputs_set, rknn_run, rknn_outputs_get) and, with ZERO_COPY defined, the
 * zero-copy API (native attributes, rknn_create_mem, rknn_set_io_mem, w_stride rows,
 * NC1HWC2 outputs converted by the application).
 */
#ifndef RKNN_PPOCR_APP_H
#define RKNN_PPOCR_APP_H

#include "rknn_api.h"

typedef struct {
    rknn_context ctx;
    rknn_input_output_num io_num;
    rknn_tensor_attr input_attr;  /* INPUT_ATTR: NHWC [1, H, W, C], C 3 (RGB) or 1 (grey) */
    rknn_tensor_attr output_attr; /* OUTPUT_ATTR: the model's order */
#ifdef ZERO_COPY
    rknn_tensor_attr native_input_attr;
    rknn_tensor_attr native_output_attr;
    rknn_tensor_mem* input_mem;
    rknn_tensor_mem* output_mem;
#endif
    int is_quant; /* int8 outputs: dequantized with the attributes' zp and scale */
    int model_height;
    int model_width;
    int model_channel;
} rknn_app_context_t;

int init_model(const char* model_path, rknn_app_context_t* app);
/* `rgb`: model_height x model_width x model_channel pixels (NHWC, packed rows); `out`: output_attr.n_elems
 * floats in the model's order. 0 = success. */
int inference(rknn_app_context_t* app, const unsigned char* rgb, float* out);
void release_model(rknn_app_context_t* app);

#endif
