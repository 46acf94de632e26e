// placeholder: being written (docs/canonical-two-stage.md)
