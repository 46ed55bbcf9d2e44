/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractOpenTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's contract test, unmodified, on our s3a:// FileSystem: open() and openFile(): missing files,
 * directories, reading what was written, builder options.
 */
public class TestSlipstreamContractOpen extends AbstractContractOpenTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new SlipstreamS3AContract(conf);
  }

  /**
   * The base class's hook for stores that encrypt everything: S3 encrypts every object at rest
   * (SSE-S3 at least), so S3A reports {@code isEncrypted()} true for every file, empty ones included,
   * and declares exactly this for its own contract tests.
   */
  @Override
  protected boolean areZeroByteFilesEncrypted() {
    return true;
  }
}
