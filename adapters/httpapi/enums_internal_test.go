package httpapi

// ExportFormats are the export's formats, for TestSchemaEnumsAreCore in package httpapi_test.
var ExportFormats = exportFormats[:]
