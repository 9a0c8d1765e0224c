package dev.logpipe.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class as an integration test: it starts a Kafka broker, a child JVM, a browser, an OpenSearch node or
 * another real process. {@code mvn test} (the fast loop) leaves these out; {@code mvn verify} runs them after the unit
 * tests, in the {@code integration-test} phase. Inherited, so a shared base class can carry it for its subclasses.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag(Integration.TAG)
public @interface Integration {
    /** The JUnit tag, as Surefire's {@code groups} and {@code excludedGroups} name it (the parent pom). */
    String TAG = "integration";
}
