/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractVectoredReadTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's contract test, unmodified, on our s3a:// FileSystem: readVectored() into heap and direct
 * buffers. Hadoop 3.4 (JUnit 4): the base class runs with the Parameterized runner, which passes each
 * buffer type from its {@code @Parameters} method to this constructor.
 */
public class TestSlipstreamContractVectoredRead extends AbstractContractVectoredReadTest {
  public TestSlipstreamContractVectoredRead(String bufferType) {
    super(bufferType);
  }

  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new SlipstreamS3AContract(conf);
  }
}
