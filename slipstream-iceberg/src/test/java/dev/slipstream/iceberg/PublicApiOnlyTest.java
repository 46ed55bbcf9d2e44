/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The Iceberg module uses Slipstream only through its public API, the package {@code dev.slipstream}: no
 * class of this module, main or test, depends on {@code dev.slipstream.internal}, which may change between
 * versions (as slipstream-hadoop's PublicApiOnlyTest says, and why it is checked on the bytecode).
 */
@AnalyzeClasses(packages = "dev.slipstream.iceberg")
class PublicApiOnlyTest {
  @ArchTest
  static final ArchRule NO_INTERNALS = noClasses()
      .should().dependOnClassesThat().resideInAPackage("dev.slipstream.internal..")
      .because("modules outside slipstream-core use only the public API in dev.slipstream");
}
