/*
 * YOLOv5 post-processing as the model zoo's yolov5 demo does it (its postprocess.cc, written
 * here in C99): per level and anchor, cells whose objectness passes BOX_THRESH; the box
 * decoded from the sigmoid outputs (xy * 2 - 0.5 + grid, (wh * 2)^2 * anchor) times the
 * stride; kept if the best class probability is above BOX_THRESH, scored objectness x that
 * probability; sorted by score (stable: ties keep their order, the zoo's quicksort does not);
 * NMS per class at NMS_THRESH; boxes mapped back through the letterbox. int8 outputs are
 * compared with the threshold quantized and dequantized with each output's zp and scale.
 */
#ifndef RKNN_YOLO_POSTPROCESS_H
#define RKNN_YOLO_POSTPROCESS_H

#include <stdint.h>

#define OBJ_CLASS_NUM 80
#define OBJ_NUMB_MAX_SIZE 128
#define BOX_THRESH 0.25f
#define NMS_THRESH 0.45f
#define YOLO_LEVELS 3

typedef struct {
    int left, top, right, bottom;
} image_rect_t;

typedef struct {
    image_rect_t box;
    float prop;
    int cls_id;
} object_detect_result;

typedef struct {
    int count;
    object_detect_result results[OBJ_NUMB_MAX_SIZE];
} object_detect_result_list;

/* One detection output [1, 3 x (5 + classes), grid_h, grid_w] in NCHW: int8 with zp and
 * scale (is_quant) or float. */
typedef struct {
    const void* data;
    int grid_h, grid_w;
    int is_quant;
    int32_t zp;
    float scale;
} yolo_output_t;

/* The letterbox of the image into the model's input: image pixel = (input - pad) / scale. */
typedef struct {
    float scale;
    int x_pad, y_pad;
} letterbox_t;

/* 0 = success; results in image pixels: each corner clamped to [0, model_w or model_h]
 * after removing the padding, then divided by the scale and truncated, as the zoo does (so
 * a box may reach past the image by up to the padding / scale). */
int post_process(const yolo_output_t outputs[YOLO_LEVELS], int model_w, int model_h, const letterbox_t* lb,
                 int img_w, int img_h, object_detect_result_list* od_results);

#endif
