import BoxCLI

await BoxfsEntry.main()
