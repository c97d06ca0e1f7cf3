/* rodd links no HDF5: `run --format hdf5` is handed to rodd-full before it starts (delegate.h),
 * so these stand in for server/io/export_hdf5.c and only say so if a new caller reaches them. */
#include "export_impl.h"

#include <stdio.h>

export_h5 *export_h5_open(const char *path, const export_meta *meta, char *err, size_t errlen)
{
    (void)path;
    (void)meta;
    snprintf(err, errlen, "HDF5 export is in rodd-full: this binary links no HDF5");
    return NULL;
}

int export_h5_frame(export_h5 *h, const rod_frame *f, char *err, size_t errlen)
{
    (void)h;
    (void)f;
    snprintf(err, errlen, "HDF5 export is in rodd-full");
    return -1;
}

int export_h5_close(export_h5 *h, char **image, size_t *len, char *err, size_t errlen)
{
    (void)h;
    (void)image;
    (void)len;
    snprintf(err, errlen, "HDF5 export is in rodd-full");
    return -1;
}

void export_h5_abort(export_h5 *h)
{
    (void)h;
}
