#ifndef ACL_DYNAMIC_HW_H
#define ACL_DYNAMIC_HW_H

#define ACL_DYNAMIC_HW_DEFAULT_MODEL_DIR "../model"
#define ACL_DYNAMIC_HW_DEFAULT_COUNT 200
/* The gears script/compile_model.sh compiles: --dynamic_image_size="64,64;28,28". */
#define ACL_DYNAMIC_HW_BIG 64
#define ACL_DYNAMIC_HW_SMALL 28
/* not a gear */
#define ACL_DYNAMIC_HW_OTHER 40
/* the net's total stride */
#define ACL_DYNAMIC_HW_NET_STRIDE 4
/* image spacing in the 64x64 mosaic: 28 pixels + a black ring of 2 (conv1's padding) on
 * each side, a multiple of the stride */
#define ACL_DYNAMIC_HW_SPACING 32
/* the Gemm and the equivalent Conv sum in different orders */
#define ACL_DYNAMIC_HW_TOLERANCE 1e-3f

#endif
