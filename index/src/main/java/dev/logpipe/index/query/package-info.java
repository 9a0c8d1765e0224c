/**
 * The query language, engine-neutral: the classic syntax parsed once into a tree ({@code ParsedQuery}, {@code
 * QueryNode}) that every engine translates, with its refusals and range rules.
 */
package dev.logpipe.index.query;
