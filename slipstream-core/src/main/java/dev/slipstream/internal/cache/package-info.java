/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * The local disk cache of blocks, shared by the clients of a JVM and the processes of a user on a host.
 * {@link dev.slipstream.internal.cache.DiskCache} is its face: the open caches of the JVM, read (through
 * a gate that the read path supplies, so that no cached byte skips S3's permission check), offer and
 * write, and making a deleted directory again. Behind it, one idea a class:
 * {@link dev.slipstream.internal.cache.CacheWriter} writes offered blocks on one background thread, a
 * few at a time, skipping (and counting) the rest; {@link dev.slipstream.internal.cache.CacheSpace}
 * keeps {@code cache.disk.max} and the file system's free share, evicting the least recently used
 * blocks; {@link dev.slipstream.internal.cache.CacheDirectory} decides where the cache may live and
 * refuses what it did not create (another user's directory, a symlink, a directory others may write
 * to); {@link dev.slipstream.internal.cache.BlockFile} is the file format and the cache's exact file
 * names, the only files it ever deletes; {@link dev.slipstream.internal.cache.BlockIndex} keeps the
 * least-recently-used order and the size of the whole directory, whichever processes wrote it, in a
 * {@link dev.slipstream.internal.cache.RecencyTable} of a few bytes a file. Every
 * cache problem is a miss: the read goes to S3.
 */
package dev.slipstream.internal.cache;
