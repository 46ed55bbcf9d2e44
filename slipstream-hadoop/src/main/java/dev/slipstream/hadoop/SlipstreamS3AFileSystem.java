/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import org.apache.hadoop.fs.s3a.S3AFileSystem;

/** Work in progress: the FileSystem to name in fs.s3a.impl. */
public class SlipstreamS3AFileSystem extends S3AFileSystem {
}
