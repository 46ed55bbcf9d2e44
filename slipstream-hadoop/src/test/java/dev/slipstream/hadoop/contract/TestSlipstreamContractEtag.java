/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractEtagTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's contract test, unmodified, on our s3a:// FileSystem: ETags from getFileStatus() and listings agree, and change with the data. */
public class TestSlipstreamContractEtag extends AbstractContractEtagTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new SlipstreamS3AContract(conf);
  }
}
