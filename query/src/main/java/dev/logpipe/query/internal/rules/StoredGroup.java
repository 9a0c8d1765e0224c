package dev.logpipe.query.internal.rules;

/** A rule group the admin API keeps: its tenant, its name and its text as it was sent (the ruler format, YAML). */
public record StoredGroup(String tenant, String name, String yaml) {}
