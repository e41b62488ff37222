package org.mpfl.ir.plan;

/** A library jar: its path as written in the document and its entry in every service archive ({@code lib/NAME.jar}). */
public record PlanLibrary(String path, String archiveEntry) {
}
