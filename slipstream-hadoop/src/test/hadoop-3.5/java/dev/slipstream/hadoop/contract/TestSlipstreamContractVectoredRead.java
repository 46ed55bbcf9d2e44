/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractVectoredReadTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hadoop's contract test, unmodified, on our s3a:// FileSystem: readVectored() into heap and direct
 * buffers. Hadoop 3.5 (JUnit 5): the buffer type comes from the base class's {@code params()} through
 * this constructor, once per value.
 */
@ParameterizedClass(name = "buffer-{0}")
@MethodSource("params")
public class TestSlipstreamContractVectoredRead extends AbstractContractVectoredReadTest {
  public TestSlipstreamContractVectoredRead(String bufferType) {
    super(bufferType);
  }

  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new SlipstreamS3AContract(conf);
  }
}
