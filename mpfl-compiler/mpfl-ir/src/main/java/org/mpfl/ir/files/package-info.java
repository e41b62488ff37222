/**
 * File-system helpers shared by every module above the IR (the compiler, the runtime, the engine and
 * the benchmarks): today {@link org.mpfl.ir.files.FileTrees}, the one way to delete a directory tree.
 * It lives in mpfl-ir because that is the lowest module all of them depend on; it uses nothing of MPFL.
 */
package org.mpfl.ir.files;
