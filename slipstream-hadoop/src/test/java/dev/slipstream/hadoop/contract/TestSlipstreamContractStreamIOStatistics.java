/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractStreamIOStatisticsTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's contract test, unmodified, on our s3a:// FileSystem: Input and output streams publish IOStatistics that count the bytes read and written. */
public class TestSlipstreamContractStreamIOStatistics extends AbstractContractStreamIOStatisticsTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new SlipstreamS3AContract(conf);
  }
}
