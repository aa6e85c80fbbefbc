#ifndef ACL_DYNAMIC_AIPP_H
#define ACL_DYNAMIC_AIPP_H

#define ACL_DYNAMIC_AIPP_DEFAULT_MODEL_DIR "../model"
#define ACL_DYNAMIC_AIPP_DEFAULT_COUNT 200
#define ACL_DYNAMIC_AIPP_DEFAULT_MIN_TOP1 78.0

/* The camera frame: PAL-size YUV420SP (NV12: the Y plane, then rows of interleaved U, V),
 * the vendor sample's source size. script/aipp_dynamic.cfg declares it as the largest
 * source (max_src_image_size_w/_h). */
#define ACL_DYNAMIC_AIPP_FRAME_W 720
#define ACL_DYNAMIC_AIPP_FRAME_H 576

/* The garment in a frame is the 24x24 centre of a 28x28 test image, each image pixel an
 * s x s block, s = SCALE_MIN .. SCALE_MAX (the camera's distance changes per frame). AIPP
 * crops that box, pads it by MARGIN x s on every side (the black border the LeNet was
 * trained with) and resizes the padded (28 s)^2 box to 28x28. */
#define ACL_DYNAMIC_AIPP_OBJECT 24
#define ACL_DYNAMIC_AIPP_MARGIN 2
#define ACL_DYNAMIC_AIPP_SCALE_MIN 3
#define ACL_DYNAMIC_AIPP_SCALE_MAX 5

/* BT.601 video range YUV -> RGB in Q10 (1024 = 1.0), input bias 16/128/128: the matrix the
 * vendor sample and svp_atc's model_format: RGB use for YUV420SP sources. */
#define ACL_DYNAMIC_AIPP_CSC_R {1192, 0, 1634}
#define ACL_DYNAMIC_AIPP_CSC_G {1192, -401, -832}
#define ACL_DYNAMIC_AIPP_CSC_B {1192, 2066, 0}

/* lenet_rgb's first layer weighs R, G, B with the BT.601 luma coefficients
 * (script/make_lenet_rgb.cpp); the host reference feeds lenet.om that luma. */
#define ACL_DYNAMIC_AIPP_LUMA_R 0.299f
#define ACL_DYNAMIC_AIPP_LUMA_G 0.587f
#define ACL_DYNAMIC_AIPP_LUMA_B 0.114f

/* The two nets sum the first layer in different orders */
#define ACL_DYNAMIC_AIPP_TOLERANCE 1e-3f

#endif
