#include <stdio.h>

#include "acl/svp_acl.h"

int main(void) {
    uint32_t count = 0;
    if (svp_acl_init(NULL) != SVP_ACL_SUCCESS) return 1;
    if (svp_acl_rt_get_device_count(&count) != SVP_ACL_SUCCESS || count < 1) return 2;
    if (svp_acl_finalize() != SVP_ACL_SUCCESS) return 3;
    printf("consumer ok (%u device)\n", count);
    return 0;
}
