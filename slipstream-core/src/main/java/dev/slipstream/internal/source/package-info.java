/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * Where an open object's bytes come from, as one chain asked in one place: {@link
 * dev.slipstream.internal.source.Tier}s in order (the stream's own blocks in memory, then {@link
 * dev.slipstream.internal.source.DiskTier}, the disk cache through S3's access check), then {@link
 * dev.slipstream.internal.source.S3Source}, the last source, whose retries live below it. {@link
 * dev.slipstream.internal.source.Sources} assembles the chain of each open object; {@link
 * dev.slipstream.internal.source.SourceChain} asks it and offers what S3 gave back to the tiers
 * (write-behind). A tier's trouble is a miss; only S3's answer fails a read. Pieces ({@link
 * dev.slipstream.internal.source.Piece}) are named by the object's version: a block of the stream's grid,
 * or exactly a range a columnar reader fetched.
 */
package dev.slipstream.internal.source;
