/* Empty stand-in for <stdint.h> (tools/abi_table.awk, tools/cdef.awk): the
 * public headers are preprocessed without the C library so that only
 * pcsim declarations remain; cffi knows the standard types itself. */
