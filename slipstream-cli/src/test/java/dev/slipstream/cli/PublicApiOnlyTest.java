/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The CLI uses Slipstream only through its public API, the package {@code dev.slipstream}: no class of
 * this module, main or test, depends on {@code dev.slipstream.internal}, which may change between
 * versions. What it needs of Slipstream is made public there instead (issue 18: the public face is the
 * only face).
 *
 * <p>Checked with ArchUnit on the compiled classes, rather than by a JPMS module descriptor in core that
 * exports only {@code dev.slipstream}: a descriptor binds only where core runs as a named module, and
 * this project builds and runs on the class path (Maven would put core on the module path only for a
 * module that is itself one, which Hadoop's and Spark's jars and the shaded Hadoop jar make
 * impractical), where a {@code module-info} is ignored. ArchUnit reads the bytecode as built, and its
 * failure names every offending class, member and line.
 */
@AnalyzeClasses(packages = "dev.slipstream.cli")
class PublicApiOnlyTest {
  @ArchTest
  static final ArchRule NO_INTERNALS = noClasses()
      .should().dependOnClassesThat().resideInAPackage("dev.slipstream.internal..")
      .because("modules outside slipstream-core use only the public API in dev.slipstream");
}
